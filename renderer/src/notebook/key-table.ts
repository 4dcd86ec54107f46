import { useCommands, type Command } from '../commands';
import type { NotebookController } from './notebook-controller';

/** A notebook key: JupyterLab's binding, acting on the active cell (and through it, the selection). */
interface CellKey {
  id: string;
  title: string;
  keys?: string;
  /** Where the key applies: command mode (the default), or edit mode (in the active cell's editor). */
  mode?: 'command' | 'edit';
  /** A second binding of a command the palette already lists. */
  alias?: boolean;
  run: (notebook: NotebookController, cellId: string) => void;
}

/** JupyterLab's command mode, as commands: the palette lists them with their keys. */
export const NOTEBOOK_KEYS: readonly CellKey[] = [
  {
    id: 'runCellAdvance',
    title: 'Run Selected Cells and Select Below',
    keys: 'Shift+Enter',
    run: (nb) => nb.runSelection('advance'),
  },
  { id: 'runCell', title: 'Run Selected Cells', keys: 'Mod+Enter', run: (nb) => nb.runSelection('stay') },
  {
    id: 'runCellInsert',
    title: 'Run Selected Cells and Insert Below',
    keys: 'Alt+Enter',
    run: (nb) => nb.runSelection('insert'),
  },
  { id: 'editCell', title: 'Edit Cell (Edit Mode)', keys: 'Enter', run: (nb, id) => nb.focus(id, 'edit') },
  { id: 'extendBelow', title: 'Extend Selection Below', keys: 'Shift+J', run: (nb) => nb.extendBy(1) },
  {
    id: 'extendBelowArrow',
    title: 'Extend Selection Below',
    keys: 'Shift+ArrowDown',
    alias: true,
    run: (nb) => nb.extendBy(1),
  },
  { id: 'extendAbove', title: 'Extend Selection Above', keys: 'Shift+K', run: (nb) => nb.extendBy(-1) },
  {
    id: 'extendAboveArrow',
    title: 'Extend Selection Above',
    keys: 'Shift+ArrowUp',
    alias: true,
    run: (nb) => nb.extendBy(-1),
  },
  { id: 'selectAll', title: 'Select All Cells', keys: 'Mod+A', run: (nb) => nb.selectAll() },
  { id: 'insertAbove', title: 'Insert Cell Above', keys: 'A', run: (nb, id) => nb.insert(id, 'above') },
  { id: 'insertBelow', title: 'Insert Cell Below', keys: 'B', run: (nb, id) => nb.insert(id, 'below') },
  { id: 'copyCells', title: 'Copy Cells', keys: 'C', run: (nb, id) => void nb.copy(id) },
  { id: 'cutCells', title: 'Cut Cells', keys: 'X', run: (nb, id) => nb.cut(id) },
  { id: 'pasteBelow', title: 'Paste Cells Below', keys: 'V', run: (nb, id) => nb.paste(id, 'below') },
  { id: 'pasteAbove', title: 'Paste Cells Above', keys: 'Shift+V', run: (nb, id) => nb.paste(id, 'above') },
  { id: 'deleteCell', title: 'Delete Cells', keys: 'D D', run: (nb, id) => nb.remove(id) },
  { id: 'undoCells', title: 'Undo Cell Operation', keys: 'Z', run: (nb) => nb.undo() },
  { id: 'redoCells', title: 'Redo Cell Operation', keys: 'Shift+Z', run: (nb) => nb.redo() },
  // Ctrl/Cmd+Z in command mode undoes cell operations too (in a cell's editor it stays the editor's own undo).
  { id: 'undoCellsMod', title: 'Undo Cell Operation', keys: 'Mod+Z', alias: true, run: (nb) => nb.undo() },
  { id: 'redoCellsMod', title: 'Redo Cell Operation', keys: 'Mod+Shift+Z', alias: true, run: (nb) => nb.redo() },
  {
    id: 'mergeCells',
    title: 'Merge Selected Cells (or With Cell Below)',
    keys: 'Shift+M',
    run: (nb, id) => nb.merge(id),
  },
  { id: 'splitCell', title: 'Split Cell at Cursor', keys: 'Ctrl+Shift+-', mode: 'edit', run: (nb, id) => nb.split(id) },
  { id: 'moveUp', title: 'Move Cells Up', keys: 'Ctrl+Shift+ArrowUp', run: (nb, id) => nb.move(id, -1) },
  { id: 'moveDown', title: 'Move Cells Down', keys: 'Ctrl+Shift+ArrowDown', run: (nb, id) => nb.move(id, 1) },
  { id: 'toMarkdown', title: 'Change Cells to Markdown', keys: 'M', run: (nb, id) => nb.setType(id, 'markdown') },
  { id: 'toCode', title: 'Change Cells to Code', keys: 'Y', run: (nb, id) => nb.setType(id, 'code') },
  { id: 'toRaw', title: 'Change Cells to Raw', keys: 'R', run: (nb, id) => nb.setType(id, 'raw') },
  ...[1, 2, 3, 4, 5, 6].map((level): CellKey => ({
    id: `heading${level}`,
    title: `Change Cells to Heading ${level}`,
    keys: String(level),
    run: (nb, id) => nb.setHeading(id, level),
  })),
  { id: 'clearOutputs', title: 'Clear Cell Outputs', run: (nb, id) => nb.clear(id) },
  { id: 'toggleOutputs', title: 'Toggle Cell Outputs', keys: 'O', run: (nb, id) => nb.toggleOutputs(id) },
  {
    id: 'toggleOutputScrolling',
    title: 'Toggle Output Scrolling',
    keys: 'Shift+O',
    run: (nb, id) => nb.toggleOutputScrolling(id),
  },
  { id: 'toggleInput', title: 'Toggle Cell Input', run: (nb, id) => nb.toggleInput(id) },
  { id: 'lineNumbers', title: 'Toggle Line Numbers', keys: 'L', run: (nb, id) => nb.toggleLineNumbers(id) },
  { id: 'allLineNumbers', title: 'Toggle All Line Numbers', keys: 'Shift+L', run: (nb) => nb.toggleAllLineNumbers() },
  { id: 'restartKernel', title: 'Restart Kernel', keys: '0 0', run: (nb) => nb.restart() },
  { id: 'interruptKernel', title: 'Interrupt Kernel', keys: 'I I', run: (nb) => nb.interrupt() },
];

/**
 * Moving between cells: arrows and j/k are navigation, not commands (the palette does not list them),
 * and only a cell or the list itself takes them, with no modifier held.
 */
const NAVIGATION_KEYS: Record<string, -1 | 1> = { ArrowUp: -1, k: -1, ArrowDown: 1, j: 1 };

export function navigationStep(event: {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  shiftKey: boolean;
}): -1 | 1 | null {
  if (event.ctrlKey || event.metaKey || event.altKey || event.shiftKey) return null;
  return NAVIGATION_KEYS[event.key] ?? null;
}

/**
 * Registers the table while the notebook is shown; a key applies only in its mode: command mode
 * (`inCommandMode`) or edit mode in this notebook (`inEditMode`).
 */
export function useNotebookKeys(
  notebook: NotebookController,
  inCommandMode: () => boolean,
  inEditMode: () => boolean,
): void {
  useCommands(
    NOTEBOOK_KEYS.map((key): Command => ({
      id: `notebook.${key.id}`,
      title: key.title,
      category: 'Notebook',
      keys: key.keys,
      palette: !key.alias,
      when: key.mode === 'edit' ? inEditMode : inCommandMode,
      run: () => {
        const { activeId } = notebook.getState();
        if (activeId) key.run(notebook, activeId);
      },
    })),
  );
}

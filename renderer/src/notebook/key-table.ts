import { useCommands, type Command } from '../commands';
import type { NotebookController } from './notebook-controller';

/** A command-mode key: JupyterLab's binding, acting on the selected cell. */
interface CellKey {
  id: string;
  title: string;
  keys: string;
  run: (notebook: NotebookController, cellId: string) => void;
}

/** JupyterLab's command mode, as commands: the palette lists them with their keys. */
export const NOTEBOOK_KEYS: readonly CellKey[] = [
  {
    id: 'runCellAdvance',
    title: 'Run Cell and Select Below',
    keys: 'Shift+Enter',
    run: (nb, id) => nb.run(id, 'advance'),
  },
  { id: 'runCell', title: 'Run Cell', keys: 'Mod+Enter', run: (nb, id) => nb.run(id, 'stay') },
  { id: 'runCellInsert', title: 'Run Cell and Insert Below', keys: 'Alt+Enter', run: (nb, id) => nb.run(id, 'insert') },
  { id: 'editCell', title: 'Edit Cell', keys: 'Enter', run: (nb, id) => nb.focus(id, 'edit') },
  { id: 'insertAbove', title: 'Insert Cell Above', keys: 'A', run: (nb, id) => nb.insert(id, 'above') },
  { id: 'insertBelow', title: 'Insert Cell Below', keys: 'B', run: (nb, id) => nb.insert(id, 'below') },
  { id: 'toMarkdown', title: 'Change Cell to Markdown', keys: 'M', run: (nb, id) => nb.setType(id, 'markdown') },
  { id: 'toCode', title: 'Change Cell to Code', keys: 'Y', run: (nb, id) => nb.setType(id, 'code') },
  { id: 'toRaw', title: 'Change Cell to Raw', keys: 'R', run: (nb, id) => nb.setType(id, 'raw') },
  { id: 'deleteCell', title: 'Delete Cell', keys: 'D D', run: (nb, id) => nb.remove(id) },
  { id: 'undoDelete', title: 'Undo Cell Deletion', keys: 'Z', run: (nb) => nb.undoDelete() },
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

/** Registers the table while the notebook is shown; a key applies only in command mode (`inCommandMode`). */
export function useNotebookKeys(notebook: NotebookController, inCommandMode: () => boolean): void {
  useCommands(
    NOTEBOOK_KEYS.map((key): Command => ({
      id: `notebook.${key.id}`,
      title: key.title,
      category: 'Notebook',
      keys: key.keys,
      when: inCommandMode,
      run: () => {
        const { activeId } = notebook.getState();
        if (activeId) key.run(notebook, activeId);
      },
    })),
  );
}

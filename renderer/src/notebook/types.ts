import type { CellType, NotebookCell } from '../../../shared/contract';

// The types the notebook's parts share (the controller, its cells and their editors, the cell drag): here, so that
// none of those modules imports another just for a type and the notebook's imports run one way.

export type EditorKey = 'run' | 'run-advance' | 'run-insert' | 'escape' | 'up-out' | 'down-out';

/** What the notebook can do with a cell's editor, whether or not Monaco was created yet. */
export interface EditorHandle {
  focus(): void;
  hasTextFocus(): boolean;
  /** Where to split (Ctrl+Shift+-): each cursor's offset, or a selection's start and end; [] before Monaco is made. */
  cursorOffsets(): number[];
  /** Selects a range (1-based line, UTF-16 offsets in it) and focuses the editor, creating it first if needed. */
  select(target: { line: number; start: number; end: number }): void;
}

/**
 * What dragging a cell's handle reads of its notebook (the controller): which cells go (the selection the cell is
 * in), and which notebook they come from, so a drop tells a move within it from a copy.
 */
export interface CellDragSource {
  selection(): string[];
  focus(cellId: string, mode: 'command'): void;
  getState(): { activeId: string | null };
  readonly session: { readonly path: string; cell(cellId: string): { cell: NotebookCell } | undefined };
}

/** What a cell asks the notebook to do; the notebook owns selection, focus and the session. */
export interface CellActions extends CellDragSource {
  select: (cellId: string, mode: 'command' | 'edit') => void;
  run: (cellId: string, then: 'stay' | 'advance' | 'insert') => void;
  runScope: (cellId: string, scope: 'above' | 'below') => void;
  edit: (cellId: string, source: string) => void;
  editorKey: (cellId: string, key: EditorKey) => void;
  move: (cellId: string, by: -1 | 1) => void;
  remove: (cellId: string) => void;
  insert: (cellId: string, where: 'above' | 'below') => void;
  setType: (cellId: string, type: CellType) => void;
  clear: (cellId: string) => void;
  answer: (cellId: string, value: string) => void;
  registerEditor: (cellId: string, editor: EditorHandle | null) => void;
  registerCell: (cellId: string, element: HTMLDivElement | null) => void;
  /** A click on the cell's chrome: Shift extends the selection, Ctrl/Cmd toggles the cell in it. */
  pointerSelect: (cellId: string, how: { extend: boolean; toggle: boolean }) => void;
  copy: (cellId: string) => void;
  cut: (cellId: string) => void;
  paste: (cellId: string, where: 'above' | 'below') => void;
  merge: (cellId: string) => void;
  split: (cellId: string) => void;
  toggleOutputs: (cellId: string) => void;
  toggleInput: (cellId: string) => void;
}

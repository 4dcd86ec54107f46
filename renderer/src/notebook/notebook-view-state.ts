// The notebook view's state, which its controller holds as a store and its parts (selection, undo, actions) read
// and change through a `ViewState`.

export type NotebookMode = 'command' | 'edit';

export interface NotebookViewState {
  activeId: string | null;
  /** JupyterLab's modes: command (keys act on cells) or edit (keys go to the cell's editor). */
  mode: NotebookMode;
  /** Markdown cells shown as source (being edited) rather than rendered. */
  unrendered: ReadonlySet<string>;
  /** Bumped when focus should move to the active cell (or its editor). */
  focusTick: number;
  saving: boolean;
  /** The selected cells (JupyterLab's multi-select); empty means just the active one. */
  selected: ReadonlySet<string>;
  /** Where Shift+J/K and Shift+click extend from. */
  anchorId: string | null;
  /** Cells whose line numbers are flipped from the notebook's setting (L), and that setting (Shift+L). */
  lineNumbers: ReadonlySet<string>;
  allLineNumbers: boolean;
  /** Whether Z / Shift+Z have something to do. */
  canUndo: boolean;
  canRedo: boolean;
}

/** A new notebook view: command mode, nothing selected yet, nothing to undo. */
export function initialViewState(): NotebookViewState {
  return {
    activeId: null,
    mode: 'command',
    unrendered: new Set(),
    focusTick: 0,
    saving: false,
    selected: new Set(),
    anchorId: null,
    lineNumbers: new Set(),
    allLineNumbers: false,
    canUndo: false,
    canRedo: false,
  };
}

/** The controller's store as its parts see it: the state now, and a change the view is told of at once. */
export interface ViewState {
  readonly state: NotebookViewState;
  set(patch: Partial<NotebookViewState>): void;
}

/** A `ViewState` over a store's state, read anew at each use. */
export function viewState(
  read: () => NotebookViewState,
  write: (patch: Partial<NotebookViewState>) => void,
): ViewState {
  return {
    get state() {
      return read();
    },
    set: write,
  };
}

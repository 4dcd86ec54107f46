import type { CellState, KernelInfo, KernelSpecInfo, NotebookCell, NotebookDocument } from '../../../shared/contract';
import { shownError } from '../base';

// What a notebook session holds (its state, each cell's view), and the pure steps its parts share.

/** One cell as the view shows it: the document's cell plus what only the running session knows. */
export interface CellView {
  cell: NotebookCell;
  state: CellState;
  /** A pending input() prompt. */
  input: { prompt: string; password: boolean } | null;
  /** What the operator answered to input() prompts in this run (shown as JupyterLab does; not saved). */
  answers: string[];
  /** Why the cell's last run did not happen or was cut off, when the kernel said (not saved; the next run clears it). */
  note?: string;
}

export interface NotebookProblem {
  code: string;
  message: string;
}

export interface NotebookSessionState {
  status: 'loading' | 'ready' | 'error';
  /** Why the notebook could not be opened (invalid JSON, schema error, ...). */
  error: NotebookProblem | null;
  cells: CellView[];
  dirty: boolean;
  kernel: KernelInfo;
  metadata: Record<string, unknown>;
  warnings: string[];
  /** Changed on disk while dirty. */
  conflict: string | null;
  /** The conflict is that the file is gone (deleted, or renamed by another program): Save As is the way out. */
  conflictDeleted: boolean;
  /** Jupyter missing or unreachable, the server restarting, a run refused. */
  jupyterError: NotebookProblem | null;
  specs: { default: string | null; specs: KernelSpecInfo[] } | null;
  /** Bumped when the whole document was replaced (reload, revert, agent edit): editors resync their text. */
  generation: number;
  /** Every cell has arrived: an open sends a big notebook's first cells first and the rest after they painted. */
  allCellsLoaded: boolean;
}

const NO_KERNEL: KernelInfo = { status: 'none', name: null, displayName: null, language: null };

/** Before the first load. */
export const INITIAL_STATE: NotebookSessionState = {
  status: 'loading',
  error: null,
  cells: [],
  dirty: false,
  kernel: NO_KERNEL,
  metadata: {},
  warnings: [],
  conflict: null,
  conflictDeleted: false,
  jupyterError: null,
  specs: null,
  generation: 0,
  allCellsLoaded: false,
};

export function problemOf(err: unknown): NotebookProblem {
  const { code, message } = shownError(err);
  return { code, message };
}

/** A cell as a fresh view shows it: not running, no prompt. */
export function idleView(cell: NotebookCell): CellView {
  return { cell, state: 'idle', input: null, answers: [] };
}

/** The list with `moving` taken out (in order) and put back as one block starting at `toIndex`. */
export function movedBlock<T extends { cell: { id: string } }>(
  list: readonly T[],
  moving: ReadonlySet<string>,
  toIndex: number,
): T[] {
  const picked = list.filter((c) => moving.has(c.cell.id));
  const rest = list.filter((c) => !moving.has(c.cell.id));
  const to = Math.min(Math.max(0, toIndex), rest.length);
  return [...rest.slice(0, to), ...picked, ...rest.slice(to)];
}

/**
 * The state a whole document from main makes (an open, a reload, a revert, an agent's edit): cells keep whether
 * they run, a kernel main reports as none yet keeps the one known, and a conflict lasts only while still dirty.
 */
export function adoptedState(state: NotebookSessionState, doc: NotebookDocument): NotebookSessionState {
  const previous = new Map(state.cells.map((c) => [c.cell.id, c]));
  return {
    ...state,
    status: 'ready',
    error: null,
    cells: doc.cells.map((cell) => ({
      cell,
      state: previous.get(cell.id)?.state ?? 'idle',
      input: null,
      answers: [],
    })),
    dirty: doc.dirty,
    kernel: doc.kernel.status === 'none' && state.kernel.status !== 'none' ? state.kernel : doc.kernel,
    metadata: doc.metadata,
    warnings: doc.warnings,
    conflict: doc.dirty ? state.conflict : null,
    conflictDeleted: doc.dirty && state.conflictDeleted,
    generation: state.generation + 1,
    allCellsLoaded: !doc.pendingCells,
  };
}

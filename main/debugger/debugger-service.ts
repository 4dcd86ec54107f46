import type {
  CellBreakpoints,
  DebugState,
  debuggerRequests,
  EventPayload,
  FileBreakpoints,
  FsChange,
} from '../../shared/contract';
import { joinMultiline } from '../../shared/contract';
import type { Event } from '../../shared/base/event';
import { KilnError } from '../../shared/errors';
import { wireEmitter } from '../events';
import type { NotebookService } from '../notebook';
import type { KeyValueStore } from '../prefs';
import type { HandlersFor } from '../router';
import { FileBreakpointStore } from './file-breakpoints';
import { NotebookDebugger } from './notebook-debugger';

/** The store key of every notebook's breakpoints: { [workspace root + notebook path]: { [cellId]: lines } }. */
const STORE_KEY = 'debuggerBreakpoints';

export interface DebuggerServiceOptions {
  notebooks: NotebookService;
  root: string;
  /** Where breakpoints are kept (Kiln's own state, never the notebook file). */
  store: KeyValueStore;
  /** Whether the operator trusts the folder: breakpoints in its files go to a kernel only then (default: trusted). */
  trusted?: () => boolean;
  /** Whether kernels run on a remote Jupyter server: breakpoints in files are not sent to them (default: local). */
  remoteKernels?: () => boolean;
  /**
   * The files that hold breakpoints now: the watcher learns who they are, so another program's rename or move of
   * one reaches the change feed as a move they follow. Resolves once it knows them.
   */
  followFiles?: (rels: readonly string[]) => Promise<void>;
}

/** Why an Agent's run is refused while the operator has the kernel paused. */
export const PAUSED_FOR_AGENT =
  'The kernel is paused in the debugger: the operator is stepping through a cell. Cells run again once they continue or stop debugging.';

/** Every notebook's debugger, by path; the debugger belongs to the operator, so Agents' runs wait outside it. */
export class DebuggerService {
  private readonly debuggers = new Map<string, NotebookDebugger>();
  readonly files: FileBreakpointStore;
  private readonly stateChanged = wireEmitter<'debugger.state'>();
  /** A notebook's debug state changed: paused (with frames), running, off or unavailable. */
  readonly onDidChangeState: Event<EventPayload<'debugger.state'>> = this.stateChanged.event;
  /** The files' breakpoints changed: set, carried along by a rename or move, or gone with their file. */
  readonly onDidChangeFileBreakpoints: Event<EventPayload<'debugger.fileBreakpoints'>>;

  constructor(private readonly options: DebuggerServiceOptions) {
    this.files = new FileBreakpointStore(options.root, options.store);
    this.onDidChangeFileBreakpoints = this.files.onDidChange;
    options.notebooks.guardAgentRuns((rel) => {
      if (this.debuggers.get(rel)?.paused) throw new KilnError('E_BUSY', PAUSED_FOR_AGENT);
    });
  }

  /** The notebook's debugger (made on first use). */
  of(rel: string): NotebookDebugger {
    let found = this.debuggers.get(rel);
    if (!found) {
      const notebooks = this.options.notebooks;
      found = new NotebookDebugger(rel, {
        debugKernel: () => notebooks.debugKernel(rel),
        cells: () => this.cells(rel),
        runCell: (cellId) => notebooks.runCell(rel, cellId),
        interrupt: () => notebooks.interrupt(rel),
        breakpoints: () => this.breakpoints(rel),
        fileBreakpoints: () => (this.options.trusted?.() === false ? {} : this.files.all()),
        root: this.options.root,
        remoteKernel: () => this.options.remoteKernels?.() ?? false,
        publish: (state: DebugState) => this.stateChanged.fire(state),
      });
      this.debuggers.set(rel, found);
    }
    return found;
  }

  breakpoints(rel: string): CellBreakpoints {
    return this.all()[this.key(rel)] ?? {};
  }

  async setBreakpoints(rel: string, cellId: string, lines: number[]): Promise<CellBreakpoints> {
    const all = this.all();
    const mine = { ...(all[this.key(rel)] ?? {}) };
    const sorted = [...new Set(lines)].sort((a, b) => a - b);
    if (sorted.length) mine[cellId] = sorted;
    else delete mine[cellId];
    all[this.key(rel)] = mine;
    this.options.store.set(STORE_KEY, all);
    await this.debuggers.get(rel)?.breakpointsChanged(cellId);
    return mine;
  }

  /** The change feed's entry: file breakpoints follow renames and moves, and go with deleted files. */
  async applyChange(change: FsChange): Promise<void> {
    if (!this.files.applyChange(change)) return;
    await Promise.all([this.followFiles(), this.sendFileBreakpoints()]);
  }

  async setFileBreakpoints(rel: string, lines: number[]): Promise<FileBreakpoints> {
    const all = this.files.set(rel, lines);
    // Set means followed: a rename right after this answers is already a move for it.
    await Promise.all([this.followFiles(), this.sendFileBreakpoints()]);
    return all;
  }

  /** Tells the watcher which files hold breakpoints (at start, and whenever the set changes). */
  followFiles(): Promise<void> {
    return this.options.followFiles?.(Object.keys(this.files.all())) ?? Promise.resolve();
  }

  handlers(): HandlersFor<keyof typeof debuggerRequests> {
    return {
      'debugger.state': ({ path }) => this.of(path).state,
      'debugger.breakpoints': ({ path }) => this.breakpoints(path),
      'debugger.setBreakpoints': ({ path, cellId, lines }) => this.setBreakpoints(path, cellId, lines),
      'debugger.fileBreakpoints': () => this.files.all(),
      'debugger.setFileBreakpoints': ({ path, lines }) => this.setFileBreakpoints(path, lines),
      'debugger.debugCell': ({ path, cellId }) => this.of(path).debugCell(cellId),
      'debugger.command': ({ path, command }) => this.of(path).command(command),
      'debugger.scopes': ({ path, frameId }) => this.of(path).scopes(frameId),
      'debugger.evaluate': ({ path, frameId, expression }) => this.of(path).evaluate(frameId, expression),
    };
  }

  /** Every debug session going gets the files' breakpoints as they are now. */
  private async sendFileBreakpoints(): Promise<void> {
    await Promise.all(
      [...this.debuggers.values()].map((open) =>
        open.fileBreakpointsChanged().catch((err: unknown) => {
          // Its session ended (or its kernel died) between the change and the send: it has nothing to update.
          console.warn("[kiln] a debug session did not take the files' new breakpoints", err);
        }),
      ),
    );
  }

  private cells(rel: string): { id: string; code: string | null }[] {
    const nb = this.options.notebooks.cellsOf(rel);
    return nb.map((cell) => ({
      id: cell.id,
      code: cell.cell_type === 'code' ? joinMultiline(cell.source as string | string[] | undefined) : null,
    }));
  }

  private key(rel: string): string {
    return `${this.options.root}\u0000${rel}`;
  }

  private all(): Record<string, CellBreakpoints> {
    const stored = this.options.store.get(STORE_KEY);
    return stored && typeof stored === 'object' ? { ...(stored as Record<string, CellBreakpoints>) } : {};
  }
}

import type {
  CellBreakpoints,
  DebugCommand,
  DebugFrame,
  DebugScope,
  DebugState,
  FileBreakpoints,
  KilnBridge,
} from '../../../shared/contract';
import { errorText, perBridge, Store } from '../base';

/** One line of the evaluate box's history. */
export interface Evaluation {
  expression: string;
  result: string;
  ok: boolean;
}

export interface DebuggerState {
  /** Each notebook's debug state, as main last said. */
  sessions: ReadonlyMap<string, DebugState>;
  /** Each notebook's breakpoints by cell id (fetched when a cell of it first shows). */
  breakpoints: ReadonlyMap<string, CellBreakpoints>;
  /** The workspace's `.py` files' breakpoints by path (main re-keys them after moves); null until fetched. */
  fileBreakpoints: FileBreakpoints | null;
  /** The notebook whose Debug Cell run went last: its session shows while a file it stopped in is active. */
  debugged: string | null;
  /** The frame whose scopes show and where expressions evaluate (index into the paused frames). */
  selectedFrame: number;
  scopes: DebugScope[] | null;
  evaluations: Evaluation[];
  /** A request that failed, in one line. */
  error: string | null;
  /**
   * The editor that last had focus: F9 and the palette's Debug Cell act on it. A code cell (`cellId`) of the
   * notebook `path`, or a `.py` file (`cellId` null) at `path`.
   */
  focused: { path: string; cellId: string | null; line: () => number | null } | null;
}

/**
 * The window's debugger state: sessions and breakpoints per notebook (main owns both; this mirrors them),
 * the selected frame's scopes and the evaluate box's lines.
 */
export class DebuggerStore extends Store<DebuggerState> {
  private readonly loading = new Set<string>();

  constructor(private readonly bridge: KilnBridge) {
    super({
      sessions: new Map(),
      breakpoints: new Map(),
      fileBreakpoints: null,
      debugged: null,
      selectedFrame: 0,
      scopes: null,
      evaluations: [],
      error: null,
      focused: null,
    });
    this.own(bridge.on('debugger.state', (state) => this.apply(state)));
    this.own(bridge.on('debugger.fileBreakpoints', (fileBreakpoints) => this.set({ fileBreakpoints })));
  }

  /**
   * The notebook whose debug session the panel shows: the active notebook's, else (a file it stopped in is
   * active) the one whose Debug Cell run is going.
   */
  sessionPath(active: string | null): string | null {
    const own = active && isNotebook(active) ? this.session(active) : null;
    if (own && own.status !== 'off') return active;
    const debugged = this.session(this.state.debugged);
    if (debugged && (debugged.status === 'running' || debugged.status === 'paused')) return this.state.debugged;
    return active && isNotebook(active) ? active : null;
  }

  /** The frame shown (the selected one) of the Debug Cell run that is paused, if one is. */
  pausedFrame(): DebugFrame | null {
    const session = this.session(this.state.debugged);
    return session?.status === 'paused' ? (session.frames[this.state.selectedFrame] ?? null) : null;
  }

  /** A `.py` file's breakpoints; all files' are fetched once, and main's event keeps them. */
  fileBreakpointsOf(path: string): number[] {
    const known = this.state.fileBreakpoints;
    if (!known && !this.loading.has(FILES)) {
      this.loading.add(FILES);
      void this.bridge
        .request('debugger.fileBreakpoints', {})
        .then((fileBreakpoints) => this.set({ fileBreakpoints: { ...fileBreakpoints, ...this.state.fileBreakpoints } }))
        .catch((err: unknown) => this.set({ error: errorText(err) }));
    }
    return known?.[path] ?? [];
  }

  /** Adds or removes the breakpoint on a `.py` file's line (the glyph margin click and F9). */
  async toggleFileBreakpoint(path: string, line: number): Promise<void> {
    const lines = this.fileBreakpointsOf(path);
    await this.setFileBreakpoints(path, lines.includes(line) ? lines.filter((l) => l !== line) : [...lines, line]);
  }

  /** Replaces a `.py` file's breakpoints (a toggle, or lines moved by an edit of the file). */
  async setFileBreakpoints(path: string, lines: number[]): Promise<void> {
    this.set({ fileBreakpoints: { ...this.state.fileBreakpoints, [path]: lines } });
    try {
      this.set({ fileBreakpoints: await this.bridge.request('debugger.setFileBreakpoints', { path, lines }) });
    } catch (err) {
      this.set({ error: errorText(err) });
    }
  }

  session(path: string | null): DebugState | null {
    return path ? (this.state.sessions.get(path) ?? null) : null;
  }

  /** The notebook's breakpoints, fetched once; until then none. */
  breakpointsOf(path: string): CellBreakpoints {
    const known = this.state.breakpoints.get(path);
    if (!known && !this.loading.has(path)) {
      this.loading.add(path);
      void this.bridge
        .request('debugger.breakpoints', { path })
        .then((breakpoints) => this.setBreakpointsOf(path, breakpoints))
        .catch((err: unknown) => this.set({ error: errorText(err) }));
    }
    return known ?? {};
  }

  /** Adds or removes the breakpoint on a cell's line (the gutter click and F9). */
  async toggleBreakpoint(path: string, cellId: string, line: number): Promise<void> {
    const lines = this.breakpointsOf(path)[cellId] ?? [];
    await this.setCellBreakpoints(
      path,
      cellId,
      lines.includes(line) ? lines.filter((l) => l !== line) : [...lines, line],
    );
  }

  /** Replaces a cell's breakpoints (a toggle, or lines moved by an edit of the cell). */
  async setCellBreakpoints(path: string, cellId: string, lines: number[]): Promise<void> {
    // Shown at once; main's answer (the stored set) replaces it.
    this.setBreakpointsOf(path, { ...this.breakpointsOf(path), [cellId]: lines });
    try {
      this.setBreakpointsOf(path, await this.bridge.request('debugger.setBreakpoints', { path, cellId, lines }));
    } catch (err) {
      this.set({ error: errorText(err) });
    }
  }

  focus(focused: DebuggerState['focused']): void {
    if (focused?.cellId !== this.state.focused?.cellId || focused?.path !== this.state.focused?.path)
      this.set({ focused });
  }

  async debugCell(path: string, cellId: string): Promise<void> {
    this.set({ error: null, evaluations: [] });
    try {
      await this.bridge.request('debugger.debugCell', { path, cellId });
    } catch (err) {
      this.set({ error: errorText(err) });
    }
  }

  async command(path: string, command: DebugCommand): Promise<void> {
    try {
      // The new state comes as main's debugger.state event (paused again after a step, with its frames).
      await this.bridge.request('debugger.command', { path, command });
    } catch (err) {
      this.set({ error: errorText(err) });
    }
  }

  async selectFrame(path: string, index: number): Promise<void> {
    const frame = this.session(path)?.frames[index];
    this.set({ selectedFrame: index, scopes: null });
    if (!frame) return;
    try {
      const scopes = await this.bridge.request('debugger.scopes', { path, frameId: frame.id });
      if (this.session(path)?.frames[this.state.selectedFrame]?.id === frame.id) this.set({ scopes });
    } catch (err) {
      this.set({ error: errorText(err) });
    }
  }

  async evaluate(path: string, expression: string): Promise<void> {
    const frame = this.session(path)?.frames[this.state.selectedFrame];
    if (!frame || !expression.trim()) return;
    try {
      const { ok, result } = await this.bridge.request('debugger.evaluate', { path, frameId: frame.id, expression });
      this.set({ evaluations: [...this.state.evaluations, { expression, result, ok }] });
    } catch (err) {
      this.set({ error: errorText(err) });
    }
  }

  dismissError(): void {
    this.set({ error: null });
  }

  private setBreakpointsOf(path: string, breakpoints: CellBreakpoints): void {
    const all = new Map(this.state.breakpoints);
    all.set(path, breakpoints);
    this.set({ breakpoints: all });
  }

  private apply(state: DebugState): void {
    const sessions = new Map(this.state.sessions);
    sessions.set(state.path, state);
    const fresh = state.status === 'paused';
    const debugged = state.status === 'running' || state.status === 'paused' ? state.path : this.state.debugged;
    this.set({
      sessions,
      debugged,
      selectedFrame: 0,
      scopes: null,
      ...(state.status === 'off' ? { evaluations: [] } : {}),
    });
    // Paused anew: the innermost frame's scopes show.
    if (fresh) void this.selectFrame(state.path, 0);
  }
}

/** The loading key of the files' breakpoints (notebooks load theirs by path). */
const FILES = '\u0000files';

export function isNotebook(path: string | null): path is string {
  return Boolean(path?.toLowerCase().endsWith('.ipynb'));
}

export const useDebuggerStore = perBridge((bridge) => new DebuggerStore(bridge));

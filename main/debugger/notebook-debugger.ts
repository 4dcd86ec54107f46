import type { Kernel } from '@jupyterlab/services';
import type {
  CellBreakpoints,
  CellRunResult,
  DebugCommand,
  DebugFrame,
  DebugScope,
  DebugState,
  DebugStatus,
  FileBreakpoints,
  KernelInfo,
} from '../../shared/contract';
import { KilnError } from '../../shared/errors';
import { DebugProtocol, DebugRefusal, DebugRequestTimeout, type DapEvent } from './debug-protocol';
import { kernelPathOf, workspacePathOf } from './file-breakpoints';

/** What a notebook's debugger needs of the notebook service. */
export interface DebugHost {
  /** The kernel's connection (started if need be), null while it cannot answer. */
  debugKernel(): Promise<{ connection: Kernel.IKernelConnection; info: KernelInfo } | null>;
  /** All cells in notebook order (code cells with their source; others only count for "Cell N"). */
  cells(): { id: string; code: string | null }[];
  /** Runs the cell through the notebook's run queue (its outputs go to the cell as any run's). */
  runCell(cellId: string): Promise<CellRunResult>;
  interrupt(): Promise<unknown>;
  breakpoints(): CellBreakpoints;
  /** The breakpoints of the workspace's `.py` files to send: none in a folder not trusted. */
  fileBreakpoints(): FileBreakpoints;
  /** The workspace root (realpath'd): where the kernel finds `src/`, and how a module's frames are named. */
  root: string;
  /** Whether the kernel runs on a remote Jupyter server, whose files are not the workspace's at the same paths. */
  remoteKernel(): boolean;
  publish(state: DebugState): void;
}

interface DapFrame {
  id: number;
  name: string;
  line: number;
  source?: { path?: string };
}

/**
 * A remote server's kernel runs its own copy of the files, at paths Kiln cannot know (no mapping is configured):
 * breakpoints sent at local paths would never be hit, so none are sent, and the panel says so, as VS Code's remote
 * debugging does without a path mapping.
 */
export const FILE_BREAKPOINTS_LOCAL_ONLY = 'Breakpoints in files stop only on a local kernel';

const NO_DEBUGPY = 'it has no debugger (install debugpy in its environment: python3-debugpy on Debian)';

/** How many variables of a scope are listed (a notebook's globals can be many). */
const SCOPE_LIMIT = 300;

/**
 * One notebook's debug session. Debug Cell starts it (initialize, attach, breakpoints of every cell that has
 * some, configurationDone), runs the cell, and ends it when the run ends (disconnect), as VS Code's Debug
 * Cell does: an ordinary Run never stops at a breakpoint, and ipykernel's leading-blank-line rule (it keeps
 * them only while debugging) is back as soon as the debug run is over.
 *
 * Cells map to ipykernel's temp files by dumpCell: ipykernel names the file after a hash of the code it ran,
 * so a function defined by another cell carries that cell's file, and its breakpoints are set on it.
 */
export class NotebookDebugger {
  private protocol: DebugProtocol | null = null;
  private status: DebugStatus = 'off';
  private message: string | undefined;
  private notice: string | undefined;
  private frames: DebugFrame[] = [];
  private threadId: number | null = null;
  /** Temp file path -> cell id, and the source each cell was dumped with. */
  private readonly cellOfPath = new Map<string, string>();
  private readonly pathOfSource = new Map<string, string>();
  /** Cells whose breakpoints the adapter has (their paths), so clearing the last one reaches it. */
  private readonly sentPaths = new Map<string, string>();
  /** Workspace files whose breakpoints the adapter has (kernel paths), so a file's last one removed reaches it. */
  private readonly sentFiles = new Set<string>();

  constructor(
    readonly notebookPath: string,
    private readonly host: DebugHost,
  ) {}

  get state(): DebugState {
    return {
      path: this.notebookPath,
      status: this.status,
      ...(this.message ? { message: this.message } : {}),
      ...(this.notice ? { notice: this.notice } : {}),
      frames: this.frames,
    };
  }

  get paused(): boolean {
    return this.status === 'paused';
  }

  /** Runs the cell under the debugger; null when the kernel cannot debug (the state says why). */
  async debugCell(cellId: string): Promise<CellRunResult | null> {
    if (this.status === 'running' || this.status === 'paused')
      throw new KilnError('E_BUSY', 'A Debug Cell run is already going in this notebook: continue or stop it first');
    if (!(await this.start())) return null;
    this.setStatus('running');
    try {
      return await this.host.runCell(cellId);
    } finally {
      await this.end();
    }
  }

  /** The cell's breakpoints changed: a live session gets them at once. */
  async breakpointsChanged(cellId: string): Promise<void> {
    if (!this.protocol) return;
    const code = this.host.cells().find((c) => c.id === cellId)?.code;
    if (code == null) return;
    await this.sendBreakpoints(cellId, code, this.host.breakpoints()[cellId] ?? []);
  }

  /** The files' breakpoints changed (set, moved, deleted): a live session gets them at once. */
  async fileBreakpointsChanged(): Promise<void> {
    if (this.protocol) await this.sendFileBreakpoints();
  }

  async command(command: DebugCommand): Promise<DebugState> {
    const protocol = this.protocol;
    if (!protocol) throw new KilnError('E_BAD_REQUEST', 'No debug session is going in this notebook: use Debug Cell');
    if (command === 'stop') {
      await this.end();
      // The rest of the cell does not run: a stopped debug run ends as an interrupted one.
      await this.host.interrupt();
      return this.state;
    }
    if (command === 'pause') {
      if (this.status !== 'paused') await protocol.request('pause', { threadId: await this.mainThread() });
      return this.state;
    }
    if (this.status !== 'paused' || this.threadId === null)
      throw new KilnError('E_BAD_REQUEST', `Nothing is paused to ${command}`);
    const threadId = this.threadId;
    this.frames = [];
    this.setStatus('running');
    await protocol.request(command, { threadId });
    return this.state;
  }

  async scopes(frameId: number): Promise<DebugScope[]> {
    const protocol = this.requirePaused();
    const { scopes } = await protocol.request<{ scopes: { name: string; variablesReference: number }[] }>('scopes', {
      frameId,
    });
    return Promise.all(
      scopes.map(async (scope) => {
        const { variables } = await protocol.request<{ variables: { name: string; type?: string; value: string }[] }>(
          'variables',
          { variablesReference: scope.variablesReference, start: 0, count: SCOPE_LIMIT },
        );
        return {
          name: scope.name,
          variables: variables
            .filter((v) => !v.name.startsWith('special variables') && !v.name.startsWith('function variables'))
            .slice(0, SCOPE_LIMIT)
            .map((v) => ({ name: v.name, type: v.type ?? '', value: v.value })),
        };
      }),
    );
  }

  async evaluate(frameId: number, expression: string): Promise<{ ok: boolean; result: string }> {
    const protocol = this.requirePaused();
    try {
      const { result } = await protocol.request<{ result: string }>('evaluate', {
        expression,
        frameId,
        context: 'repl',
      });
      return { ok: true, result };
    } catch (err) {
      // The expression's own error is an answer for the evaluate box, not a failure of the request.
      if (err instanceof DebugRefusal) return { ok: false, result: err.adapterMessage };
      throw err;
    }
  }

  /** The kernel went away or the notebook closed: the session is over without asking the kernel. */
  reset(): void {
    this.protocol?.dispose();
    this.protocol = null;
    this.frames = [];
    this.threadId = null;
    if (this.status === 'running' || this.status === 'paused') this.setStatus('off');
  }

  // --- internals ------------------------------------------------------------------------------

  private requirePaused(): DebugProtocol {
    if (!this.protocol || this.status !== 'paused')
      throw new KilnError('E_BAD_REQUEST', 'The debugger is not paused in this notebook');
    return this.protocol;
  }

  /** Starts the session on the kernel; false (and the state 'unavailable' with why) when it cannot debug. */
  private async start(): Promise<boolean> {
    const kernel = await this.host.debugKernel();
    if (!kernel) return this.cannotDebug('the kernel is not running');
    const { connection, info } = kernel;
    if (info.language && info.language.toLowerCase() !== 'python')
      return this.cannotDebug(`it is a ${info.language} kernel; Kiln debugs Python kernels`);
    // Newer ipykernels say in kernel_info whether they can debug; 6.17 (Debian 12's) does not, and is asked below.
    const reply = (await connection.info) as { debugger?: boolean };
    if (reply.debugger === false) return this.cannotDebug(NO_DEBUGPY);
    const protocol = new DebugProtocol(connection);
    protocol.onEvent((event) => void this.onEvent(event));
    try {
      await protocol.request('initialize', {
        clientID: 'kiln',
        clientName: 'Kiln',
        adapterID: 'python',
        pathFormat: 'path',
        linesStartAt1: true,
        columnsStartAt1: true,
        supportsVariableType: true,
        supportsVariablePaging: true,
        supportsRunInTerminalRequest: false,
        locale: 'en',
      });
      await protocol.request('attach', {});
    } catch (err) {
      protocol.dispose();
      if (err instanceof DebugRequestTimeout)
        return this.cannotDebug('it did not answer debug requests (a remote server may not forward them)');
      // ipykernel without debugpy answers debug requests with an empty reply: a refusal.
      if (err instanceof DebugRefusal) return this.cannotDebug(NO_DEBUGPY);
      return this.cannotDebug(err instanceof Error ? err.message : String(err));
    }
    this.protocol = protocol;
    this.cellOfPath.clear();
    this.pathOfSource.clear();
    this.sentPaths.clear();
    this.sentFiles.clear();
    await this.sendFileBreakpoints();
    const breakpoints = this.host.breakpoints();
    for (const cell of this.host.cells()) {
      const lines = breakpoints[cell.id];
      if (cell.code !== null && lines?.length) await this.sendBreakpoints(cell.id, cell.code, lines);
    }
    await protocol.request('configurationDone');
    this.message = undefined;
    return true;
  }

  /** Ends the session: the paused thread resumes, breakpoints are gone from the kernel. */
  private async end(): Promise<void> {
    const protocol = this.protocol;
    if (!protocol) return;
    this.protocol = null;
    try {
      await protocol.request('disconnect', { restart: false, terminateDebuggee: false });
    } catch (err) {
      // A kernel that died or restarted has no session left to end.
      console.warn('[kiln] ending a debug session: the kernel did not take the disconnect', err);
    } finally {
      protocol.dispose();
      this.frames = [];
      this.threadId = null;
      this.notice = undefined;
      this.setStatus('off');
    }
  }

  private cannotDebug(why: string): false {
    this.message = `This kernel cannot debug: ${why}`;
    this.setStatus('unavailable');
    return false;
  }

  private setStatus(status: DebugStatus): void {
    this.status = status;
    if (status !== 'unavailable') this.message = undefined;
    this.host.publish(this.state);
  }

  private async sendBreakpoints(cellId: string, code: string, lines: number[]): Promise<void> {
    const protocol = this.protocol!;
    const sourcePath = await this.pathOf(cellId, code);
    const previous = this.sentPaths.get(cellId);
    // The cell was edited since its breakpoints were sent: the old file's go.
    if (previous && previous !== sourcePath)
      await protocol.request('setBreakpoints', { source: { path: previous }, breakpoints: [] });
    await protocol.request('setBreakpoints', {
      source: { path: sourcePath },
      breakpoints: lines.map((line) => ({ line })),
      sourceModified: false,
    });
    this.sentPaths.set(cellId, sourcePath);
  }

  /** Sends every file's breakpoints, and an empty set for a file that had some sent and has none now. */
  private async sendFileBreakpoints(): Promise<void> {
    const protocol = this.protocol!;
    const files = this.host.fileBreakpoints();
    if (this.host.remoteKernel()) {
      const notice = Object.keys(files).length > 0 ? FILE_BREAKPOINTS_LOCAL_ONLY : undefined;
      if (notice !== this.notice) {
        this.notice = notice;
        this.host.publish(this.state);
      }
      return;
    }
    const wanted = new Map<string, number[]>();
    for (const [rel, lines] of Object.entries(files)) wanted.set(kernelPathOf(this.host.root, rel), lines);
    for (const sent of this.sentFiles) if (!wanted.has(sent)) wanted.set(sent, []);
    for (const [file, lines] of wanted) {
      await protocol.request('setBreakpoints', {
        source: { path: file },
        breakpoints: lines.map((line) => ({ line })),
        sourceModified: false,
      });
      if (lines.length) this.sentFiles.add(file);
      else this.sentFiles.delete(file);
    }
  }

  /** The temp file ipykernel compiles this code under (written by dumpCell, so the adapter can read it). */
  private async pathOf(cellId: string, code: string): Promise<string> {
    let sourcePath = this.pathOfSource.get(code);
    if (!sourcePath) {
      ({ sourcePath } = await this.protocol!.request<{ sourcePath: string }>('dumpCell', { code }));
      this.pathOfSource.set(code, sourcePath);
    }
    this.cellOfPath.set(sourcePath, cellId);
    return sourcePath;
  }

  private async onEvent(event: DapEvent): Promise<void> {
    if (event.event === 'stopped') {
      const threadId = event.body?.threadId;
      if (typeof threadId !== 'number' || !this.protocol) return;
      this.threadId = threadId;
      try {
        this.frames = await this.stackTrace(threadId);
      } catch (err) {
        console.warn('[kiln] the debugger stopped but its stack could not be read', err);
        this.frames = [];
      }
      this.setStatus('paused');
    } else if (event.event === 'continued' && this.status === 'paused') {
      this.frames = [];
      this.setStatus('running');
    }
  }

  private async stackTrace(threadId: number): Promise<DebugFrame[]> {
    const protocol = this.protocol!;
    const { stackFrames } = await protocol.request<{ stackFrames: DapFrame[] }>('stackTrace', { threadId });
    const cells = this.host.cells();
    // A frame in a cell this session has not dumped yet (it ran before, unchanged): dump them all once.
    if (stackFrames.some((f) => f.source?.path && !this.cellOfPath.has(f.source.path)))
      for (const cell of cells) if (cell.code !== null) await this.pathOf(cell.id, cell.code);
    return stackFrames.map((frame) => {
      const file = frame.source?.path ?? '';
      const cellId = this.cellOfPath.get(file) ?? null;
      const index = cellId ? cells.findIndex((c) => c.id === cellId) : -1;
      const inCell = index >= 0;
      const inWorkspace = inCell || !file ? null : workspacePathOf(this.host.root, file);
      const where = inCell ? `Cell ${index + 1}` : (inWorkspace ?? file);
      return {
        id: frame.id,
        name: frame.name,
        cellId: inCell ? cellId : null,
        file: inWorkspace,
        where,
        line: frame.line,
      };
    });
  }

  private async mainThread(): Promise<number> {
    const { threads } = await this.protocol!.request<{ threads: { id: number; name: string }[] }>('threads');
    const main = threads.find((t) => t.name === 'MainThread') ?? threads[0];
    if (!main) throw new KilnError('E_BAD_REQUEST', 'The kernel has no thread to pause');
    return main.id;
  }
}

import path from 'node:path';
import type { Kernel } from '@jupyterlab/services';
import type {
  CellRunResult,
  CellType,
  EditResult,
  FsChange,
  KernelInfo,
  KernelSpecInfo,
  NotebookCell,
  NotebookDocument,
  Origin,
  PlacedCell,
  RunScope,
} from '../../shared/contract';
import type { Event } from '../../shared/base/event';
import { KilnError } from '../../shared/errors';
import { changeTouches, rekeyAfterMove } from '../../shared/fs-change';
import type { DataViewer, KernelAssist, VariablesInspector } from '../kernel';
import { emptyNotebook, serializeNotebook, type CellJson, type Json } from './format';
import {
  OpenNotebook,
  type ChangeOptions,
  type InsertedCells,
  type NotebookBackup,
  type NotebookHost,
} from './open-notebook';
import { NotebookAnnouncer, type NotebookEvents } from './notebook-announcer';
import { openKey } from './notebook-host';
import { NotebookJupyter } from './notebook-jupyter';
import {
  codeCellsOf,
  type NotebookBackupSink,
  type NotebookCellsChange,
  type NotebookCodeCells,
  type NotebookServiceOptions,
} from './service-options';

export type { ChangeOptions, NotebookBackup, NotebookFiles } from './open-notebook';
export { UNTRUSTED_KERNEL_MESSAGE } from './service-options';
export type { NotebookEvents } from './notebook-announcer';
export type {
  NotebookBackupSink,
  NotebookCellsChange,
  NotebookCodeCells,
  NotebookServiceOptions,
} from './service-options';
import { createLogger } from '../log';

const log = createLogger('notebook');
/** An open notebook's check against the disk failed (read error); the next change or a save checks again. */
const RELOAD_FAILED = 'an open notebook could not be checked against the disk after a change';

/**
 * Every open notebook, by workspace-relative path. Every front-end (renderer, agent verbs, MCP) calls these
 * methods; each finds the notebook's OpenNotebook, which does the work.
 */
export class NotebookService {
  private readonly options: NotebookServiceOptions;
  private readonly open_ = new Map<string, OpenNotebook>();
  private readonly opening = new Map<string, Promise<OpenNotebook>>();
  private readonly host: NotebookHost;
  /** Trust and the Jupyter server, as kernels need them (notebook-jupyter.ts). */
  private readonly jupyter: NotebookJupyter;
  private disposed = false;
  private recordTiming: () => boolean = () => false;
  private readonly agentRunGuards: ((rel: string) => void)[] = [];
  /** The service's onDid… events, the cells' mirrors and the backups (notebook-announcer.ts). */
  private readonly announcer = new NotebookAnnouncer();
  /** What the open notebooks announce (outputs, cell states, kernels, dirty, conflicts…); services.ts puts it on the wire. */
  readonly events: NotebookEvents = this.announcer;
  /** Fires after every change of what an open notebook's cells read: open, edit (any origin), reload, move, close. */
  readonly onDidChangeCells: Event<NotebookCellsChange> = this.announcer.onDidChangeCells;

  constructor(options: NotebookServiceOptions) {
    this.options = options;
    const srcDir = options.srcDir === undefined ? path.join(options.workspace.root, 'src') : options.srcDir;
    this.host = {
      workspace: options.workspace,
      // Read when a kernel session is made: sessions made while trusted are shut down when trust is revoked.
      get srcDir() {
        return options.trusted?.() === false ? null : srcDir;
      },
      requireTrusted: () => this.requireTrusted(),
      events: this.announcer,
      requireJupyter: () => this.jupyter.requireJupyter(),
      reportJupyterError: (notebookPath, err) => this.jupyter.reportJupyterError(notebookPath, err),
      recordTiming: () => this.recordTiming(),
    };
    this.jupyter = new NotebookJupyter(options, this.announcer);
  }

  // --- documents ------------------------------------------------------------------------------

  /**
   * Opens a notebook (or returns the open one); with `firstCells`, the answer holds only those cells (see `cells` for
   * the rest). Invalid files are refused with E_INVALID_NOTEBOOK and left untouched.
   */
  async open(rel: string, options: { firstCells?: number } = {}): Promise<NotebookDocument> {
    const nb = await this.ensureOpen(rel);
    // A notebook restored over a changed (or deleted) file says so to every window that opens it, before its document.
    if (nb.startConflict && nb.model.dirty) this.announcer.conflict({ path: nb.path, ...nb.startConflict });
    return nb.document(options);
  }

  /** A range of an open notebook's cells, if it is still at the revision the caller's document was. */
  async cells(
    rel: string,
    range: { from: number; count: number; rev: number; diskHash: string },
  ): Promise<{ cells: NotebookCell[]; stale: boolean }> {
    return (await this.notebook(rel)).cellRange(range);
  }

  /** Creates a new notebook file (E_EXISTS if there is one) and opens it. */
  async create(rel: string, options: ChangeOptions = {}): Promise<NotebookDocument> {
    const key = await this.key(rel);
    if (await this.options.workspace.exists(key)) throw new KilnError('E_EXISTS', `${key} already exists`);
    await this.options.workspace.write(key, serializeNotebook(emptyNotebook()), {
      origin: options.origin ?? 'operator',
    });
    return this.open(key);
  }

  isOpen(rel: string): boolean {
    return this.open_.has(openKey(rel));
  }

  openPaths(): string[] {
    return [...this.open_.keys()];
  }

  /** An open notebook's cells as they are now, every kind, in order (unsaved edits included); [] when it is not open. */
  cellsOf(rel: string): readonly CellJson[] {
    return this.open_.get(openKey(rel))?.model.cells ?? [];
  }

  /** The code cells of an open notebook as they are now (unsaved edits included); null when it is not open. */
  codeCells(rel: string): NotebookCodeCells | null {
    const nb = this.open_.get(openKey(rel));
    if (!nb) return null;
    return codeCellsOf(nb.model);
  }

  async get(rel: string): Promise<NotebookDocument> {
    return (await this.notebook(rel)).document();
  }

  /** Writes the notebook as Jupyter formats it. A clean notebook is not rewritten (its bytes stay as they are). */
  async save(
    rel: string,
    options: { force?: boolean; origin?: Origin } = {},
  ): Promise<{ saved: boolean; diskHash: string; rev: number }> {
    return (await this.notebook(rel)).save(options);
  }

  /**
   * Writes the notebook to a new file (never over an existing one) and goes on there: the model with its
   * kernel and Jupyter session re-keyed to the new path. For a notebook whose file went away.
   */
  async saveAs(rel: string, target: string, options: ChangeOptions = {}): Promise<NotebookDocument> {
    const nb = await this.notebook(rel);
    const to = await this.key(target);
    if (!to.toLowerCase().endsWith('.ipynb'))
      throw new KilnError('E_BAD_REQUEST', `${to} is not a notebook name (.ipynb)`);
    if (this.open_.has(to)) throw new KilnError('E_EXISTS', `${to} is already open`);
    const from = nb.path;
    await nb.saveAs(to, options);
    this.announcer.backups?.closed(from);
    this.open_.delete(from);
    this.open_.set(to, nb);
    this.announcer.cellsChange({ kind: 'moved', from, path: to });
    return nb.document();
  }

  /** Forgets the notebook (unsaved changes are dropped) and shuts its kernel down. */
  async close(rel: string): Promise<{ closed: boolean }> {
    const key = await this.key(rel);
    const nb = this.open_.get(key);
    if (!nb) return { closed: false };
    this.open_.delete(key);
    // Closed by the operator (not by shutdown, which keeps the backups for the next start).
    if (!this.disposed) this.announcer.backups?.closed(key);
    this.announcer.cellsChange({ kind: 'closed', path: key });
    await nb.close();
    return { closed: true };
  }

  /** Re-reads the file, dropping unsaved changes; the kernel keeps running. */
  async revert(rel: string): Promise<NotebookDocument> {
    return (await this.notebook(rel)).revert();
  }

  /**
   * The file changed on disk (the watcher saw it, origin external). Clean: reloaded and announced with
   * notebook.changed. Dirty: notebook.conflict. Our own writes (same hash) are ignored.
   */
  async reloadFromDisk(
    rel: string,
    diskHash?: string | null,
  ): Promise<'reloaded' | 'conflict' | 'unchanged' | 'not-open'> {
    const nb = this.open_.get(openKey(rel));
    return nb ? nb.reloadFromDisk(diskHash) : 'not-open';
  }

  /**
   * Follows the change feed. A move re-keys every open notebook it carried (the model with its unsaved
   * edits and dirty state, and the Jupyter session's path); any other change to an open notebook's file,
   * or to a folder holding it, is checked against the disk.
   */
  applyChange(change: FsChange): void {
    if (change.type === 'moved') {
      for (const [from, next, nb] of rekeyAfterMove(this.open_, change.from, change.to)) {
        nb.movedTo(next);
        this.announcer.cellsChange({ kind: 'moved', from, path: next });
      }
      return;
    }
    for (const key of this.open_.keys()) {
      if (changeTouches(change, key)) this.reloadFromDisk(key).catch(log.caught(RELOAD_FAILED, undefined, 'warn'));
    }
  }

  // --- cell edits -----------------------------------------------------------------------------

  async insertCell(
    rel: string,
    args: { index?: number; cellType?: CellType; source?: string },
    options: ChangeOptions = {},
  ): Promise<{ cell: NotebookCell; index: number; rev: number; dirty: boolean }> {
    return (await this.notebook(rel)).insertCell(args, options);
  }

  async editCell(rel: string, cellId: string, source: string, options: ChangeOptions = {}): Promise<EditResult> {
    return (await this.notebook(rel)).editCell(cellId, source, options);
  }

  async editCells(
    rel: string,
    edits: { cellId: string; source: string }[],
    options: ChangeOptions = {},
  ): Promise<EditResult> {
    return (await this.notebook(rel)).editCells(edits, options);
  }

  async setCellType(rel: string, cellId: string, cellType: CellType, options: ChangeOptions = {}): Promise<EditResult> {
    return (await this.notebook(rel)).setCellType(cellId, cellType, options);
  }

  async moveCell(rel: string, cellId: string, toIndex: number, options: ChangeOptions = {}): Promise<EditResult> {
    return (await this.notebook(rel)).moveCell(cellId, toIndex, options);
  }

  async deleteCell(
    rel: string,
    cellId: string,
    options: ChangeOptions = {},
  ): Promise<{ cell: NotebookCell; index: number; rev: number; dirty: boolean }> {
    return (await this.notebook(rel)).deleteCell(cellId, options);
  }

  async restoreCell(rel: string, cell: NotebookCell, index: number, options: ChangeOptions = {}): Promise<EditResult> {
    return (await this.notebook(rel)).restoreCell(cell, index, options);
  }

  async insertCells(
    rel: string,
    args: { index: number; cells: NotebookCell[]; keepIds?: boolean },
    options: ChangeOptions = {},
  ): Promise<InsertedCells> {
    return (await this.notebook(rel)).insertCells(args.index, args.cells, args.keepIds ?? false, options);
  }

  async deleteCells(
    rel: string,
    cellIds: string[],
    options: ChangeOptions = {},
  ): Promise<EditResult & { removed: PlacedCell[] }> {
    return (await this.notebook(rel)).deleteCells(cellIds, options);
  }

  async moveCells(rel: string, cellIds: string[], toIndex: number, options: ChangeOptions = {}): Promise<EditResult> {
    return (await this.notebook(rel)).moveCells(cellIds, toIndex, options);
  }

  async mergeCells(
    rel: string,
    cellIds: string[],
    primaryId?: string,
    options: ChangeOptions = {},
  ): Promise<EditResult & { cell: NotebookCell; index: number; removed: PlacedCell[] }> {
    return (await this.notebook(rel)).mergeCells(cellIds, primaryId, options);
  }

  async splitCell(rel: string, cellId: string, offsets: number[], options: ChangeOptions = {}): Promise<InsertedCells> {
    return (await this.notebook(rel)).splitCell(cellId, offsets, options);
  }

  async setCellMetadata(rel: string, cellId: string, metadata: Json, options: ChangeOptions = {}): Promise<EditResult> {
    return (await this.notebook(rel)).setCellMetadata(cellId, metadata, options);
  }

  async clearOutputs(rel: string, cellId?: string, options: ChangeOptions = {}): Promise<EditResult> {
    return (await this.notebook(rel)).clearOutputs(cellId, options);
  }

  // --- execution ------------------------------------------------------------------------------

  /** Whether kernels may start in this workspace (it is trusted); see NotebookJupyter. */
  kernelsAllowed(): boolean {
    return this.jupyter.kernelsAllowed();
  }

  /** E_UNTRUSTED unless kernels may start (see kernelsAllowed). */
  requireTrusted(): void {
    this.jupyter.requireTrusted();
  }

  /**
   * The workspace's trust changed. Granted: open notebooks start their kernels as on open. Revoked: every
   * running kernel of the workspace is shut down (as VS Code's restricted mode stops what runs the folder's
   * code), its runs ending as aborted.
   */
  async trustChanged(trusted: boolean): Promise<void> {
    if (this.disposed) return;
    const open = [...this.open_.values()];
    if (trusted) {
      if ((this.options.autoStartKernel ?? true) && this.options.jupyter) for (const nb of open) nb.startKernelSoon();
      return;
    }
    await Promise.all(
      open.map((nb) =>
        nb.stopKernel('Trust in this folder was revoked: its kernel was shut down.').catch((err: unknown) => {
          // The kernel or server may already be gone; the notebook has forgotten it either way.
          console.warn('[kiln] stopping a kernel after trust was revoked failed', err);
        }),
      ),
    );
  }

  /** Runs (or re-runs) one cell and resolves when it finished. */
  async runCell(rel: string, cellId: string, options: { allowStdin?: boolean } = {}): Promise<CellRunResult> {
    const nb = await this.notebook(rel);
    this.requireTrusted();
    return nb.runCell(cellId, options.allowStdin ?? true);
  }

  /** Runs all cells, those above `cellId` (exclusive) or from `cellId` down (inclusive); stops at the first error. */
  async runCells(
    rel: string,
    scope: RunScope,
    cellId?: string,
    options: { allowStdin?: boolean } = {},
  ): Promise<{ results: CellRunResult[] }> {
    const nb = await this.notebook(rel);
    this.requireTrusted();
    return { results: await nb.runCells(scope, cellId, options.allowStdin ?? true) };
  }

  /** Where the operator's "record timing" preference is read, at each run (JupyterLab's recordTiming). */
  recordTimingWhen(pref: () => boolean): void {
    this.recordTiming = pref;
  }

  /** Keeps hot-exit backups of dirty notebooks in `sink`, and opens a notebook from its backup when it has one. */
  keepBackupsIn(sink: NotebookBackupSink): void {
    this.announcer.backups = sink;
  }

  /** An open notebook's backup as it is now (null: clean; undefined: not open). */
  backupOf(rel: string): NotebookBackup | null | undefined {
    return this.open_.get(openKey(rel))?.backup();
  }

  /**
   * An open notebook's bytes as a save would write them (null: clean, unless `evenIfClean`; undefined: not open);
   * `inFileFormat`: a notebook whose file has no cell ids (4.4) without them.
   */
  unsavedText(rel: string, inFileFormat = false, evenIfClean = false): string | null | undefined {
    return this.open_.get(openKey(rel))?.unsaved(inFileFormat, evenIfClean);
  }

  /** Completion and inspection against the notebook's kernel (see KernelAssist); E_NOT_FOUND if it is not open. */
  async assist(rel: string): Promise<KernelAssist> {
    return (await this.notebook(rel)).assist;
  }

  /** The Variables view's requests against the notebook's kernel (see VariablesInspector); E_NOT_FOUND if it is not open. */
  async variables(rel: string): Promise<VariablesInspector> {
    return (await this.notebook(rel)).variables;
  }

  /** The data viewer's requests against the notebook's kernel (see DataViewer); E_NOT_FOUND if it is not open. */
  async dataViewer(rel: string): Promise<DataViewer> {
    return (await this.notebook(rel)).dataViewer;
  }

  /** The notebook's kernel connection for the debugger, the kernel started if need be; null while it cannot answer. */
  async debugKernel(rel: string): Promise<{ connection: Kernel.IKernelConnection; info: KernelInfo } | null> {
    const nb = await this.notebook(rel);
    this.requireTrusted();
    return nb.debugKernel();
  }

  /** Who may refuse an Agent's cell run (the debugger, while the operator has the kernel paused). */
  guardAgentRuns(guard: (rel: string) => void): void {
    this.agentRunGuards.push(guard);
  }

  /** Throws (a KilnError saying why) when an Agent must not run a cell of this notebook now. */
  assertAgentMayRun(rel: string): void {
    for (const guard of this.agentRunGuards) guard(rel);
  }

  async interrupt(rel: string): Promise<{ interrupted: boolean }> {
    return (await this.notebook(rel)).interrupt();
  }

  async restart(rel: string): Promise<KernelInfo> {
    const nb = await this.notebook(rel);
    this.requireTrusted();
    return nb.restart();
  }

  async restartRunAll(rel: string): Promise<{ results: CellRunResult[] }> {
    await this.restart(rel);
    return this.runCells(rel, 'all');
  }

  async reconnect(rel: string): Promise<KernelInfo> {
    const nb = await this.notebook(rel);
    this.requireTrusted();
    return nb.reconnect();
  }

  /** The server's kernelspecs. Untrusted, E_UNTRUSTED: no Jupyter server is started for an untrusted folder. */
  kernelSpecs(): Promise<{ default: string | null; specs: KernelSpecInfo[] }> {
    return this.jupyter.kernelSpecs();
  }

  /** Switches the notebook to another kernelspec; records it in the notebook's metadata. */
  async setKernel(rel: string, name: string): Promise<KernelInfo> {
    const nb = await this.notebook(rel);
    const specs = await this.kernelSpecs();
    const spec = specs.specs.find((s) => s.name === name);
    if (!spec)
      throw new KilnError(
        'E_NOT_FOUND',
        `No kernel named "${name}" on the Jupyter server (has: ${specs.specs.map((s) => s.name).join(', ')})`,
      );
    return nb.changeKernel(spec);
  }

  async inputReply(rel: string, value: string): Promise<{ accepted: boolean }> {
    return (await this.notebook(rel)).inputReply(value);
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await this.jupyter.dispose();
    await Promise.all([...this.open_.keys()].map((key) => this.close(key)));
    this.announcer.dispose();
  }

  // --- internals ------------------------------------------------------------------------------

  /** The canonical workspace-relative path (also the guard: paths outside the workspace are refused). */
  private async key(rel: string): Promise<string> {
    const abs = await this.options.workspace.resolve(rel);
    return this.options.workspace.relative(abs);
  }

  private async notebook(rel: string): Promise<OpenNotebook> {
    const nb = this.open_.get(openKey(rel)) ?? this.open_.get(await this.key(rel));
    if (!nb) throw new KilnError('E_NOT_FOUND', `The notebook ${rel} is not open`, { path: rel });
    return nb;
  }

  private async ensureOpen(rel: string): Promise<OpenNotebook> {
    if (this.disposed) throw new KilnError('E_SHUTTING_DOWN', 'Kiln is shutting down');
    const key = await this.key(rel);
    const existing = this.open_.get(key);
    if (existing) return existing;
    let pending = this.opening.get(key);
    if (!pending) {
      pending = this.load(key).finally(() => this.opening.delete(key));
      this.opening.set(key, pending);
    }
    return pending;
  }

  private async load(key: string): Promise<OpenNotebook> {
    const backup = (await this.announcer.backups?.read(key)) ?? null;
    const nb = await OpenNotebook.load(this.host, key, backup);
    this.open_.set(key, nb);
    this.announcer.cellsChange({ kind: 'opened', path: key });
    if ((this.options.autoStartKernel ?? true) && this.options.jupyter && this.kernelsAllowed()) nb.startKernelSoon();
    return nb;
  }
}

import type {
  CellRunResult,
  CellType,
  EditResult,
  FileContent,
  KernelInfo,
  KernelSpecInfo,
  NotebookCell,
  NotebookDocument,
  Origin,
  PlacedCell,
  RunScope,
  WriteResult,
} from '../../shared/contract';
import { SerialQueue } from '../../shared/base/serial-queue';
import { isKilnError, KilnError } from '../../shared/errors';
import type { DataViewer, KernelAssist, VariablesInspector } from '../kernel';
import type { Kernel } from '@jupyterlab/services';
import {
  parseNotebook,
  serializeNotebook,
  validateNotebook,
  type CellJson,
  type Json,
  type ParsedNotebook,
} from './format';
import { NotebookModel } from './model';
import { NotebookKernel } from './notebook-kernel';
import {
  notebookText,
  type ChangeOptions,
  type InsertedCells,
  type NotebookBackup,
  type NotebookHost,
} from './notebook-host';

export { asKernelError } from './notebook-host';
export type { ChangeOptions, InsertedCells, NotebookBackup, NotebookFiles, NotebookHost } from './notebook-host';

/** One open notebook: its authoritative model, its kernel and its run queue. Cells are addressed by id. */
export class OpenNotebook {
  /** The kernel and the runs (notebook-kernel.ts). */
  private readonly kernel: NotebookKernel;
  /** Completion and inspection: only ever against a kernel that is already running. */
  readonly assist: KernelAssist;
  /** The Variables view's requests: by the assist's rules, against the running kernel only. */
  readonly variables: VariablesInspector;
  /** The data viewer's requests (pages, summaries, exports): by the same rules. */
  readonly dataViewer: DataViewer;
  /** Reloads and reverts, one at a time: a read that started earlier never lands after a later one. */
  private readonly diskReads = new SerialQueue();

  /** Reads the file at `key` as a notebook; E_INVALID_NOTEBOOK (the file untouched) if it is not one. */
  static async load(host: NotebookHost, key: string, backup: NotebookBackup | null = null): Promise<OpenNotebook> {
    if (!key.toLowerCase().endsWith('.ipynb'))
      throw new KilnError('E_BAD_REQUEST', `${key} is not a notebook (.ipynb)`);
    if (backup) return OpenNotebook.restore(host, key, backup);
    const content = await host.workspace.read(key);
    const text = notebookText(key, content);
    const parsed = parseNotebook(text, key);
    return new OpenNotebook(host, modelOf(key, parsed, content.hash, text.trim() === ''));
  }

  /**
   * Reopens a notebook from its hot-exit backup: dirty, standing on the disk version it was typed over, so a
   * save is refused if the disk moved on since. That case (or a file that is gone) is the conflict the
   * window shows when it opens the notebook (`startConflict`); nothing is written.
   */
  private static async restore(host: NotebookHost, key: string, backup: NotebookBackup): Promise<OpenNotebook> {
    const parsed = parseNotebook(backup.text, key);
    const disk = await host.workspace.read(key).catch((err: unknown) => {
      if (isKilnError(err, 'E_NOT_FOUND')) return null;
      throw err;
    });
    const nb = new OpenNotebook(host, modelOf(key, parsed, backup.baseHash ?? '', true));
    if (!disk) {
      nb.startConflict = {
        diskHash: null,
        message: `${key} was deleted on disk. Save to write it again, or close it.`,
      };
    } else if (disk.hash !== backup.baseHash) {
      nb.startConflict = {
        diskHash: disk.hash,
        message: `${key} changed on disk since your unsaved changes were kept. Reload it (dropping your changes) or keep yours and save over it.`,
      };
    }
    return nb;
  }

  /** The conflict a notebook restored from a backup opened with, until it is saved or reverted. */
  startConflict: { diskHash: string | null; message: string } | null = null;

  /** The hot-exit backup of this notebook as it is now; null when it has no unsaved changes. */
  backup(): NotebookBackup | null {
    const model = this.model;
    if (!model.dirty) return null;
    return { text: serializeNotebook(model.diskJson()), baseHash: model.diskHash || null };
  }

  /**
   * The unsaved notebook's bytes as a save would write them, null when clean. `inFileFormat`: a file without cell
   * ids stays without them (what an Agent turn's review compares with the file the turn wrote, cell for cell).
   * `evenIfClean`: a clean one's too (the text before an agent's change that stays unsaved).
   */
  unsaved(inFileFormat: boolean, evenIfClean = false): string | null {
    const model = this.model;
    return model.dirty || evenIfClean ? serializeNotebook(model.diskJson(inFileFormat)) : null;
  }

  private constructor(
    private readonly host: NotebookHost,
    public model: NotebookModel,
  ) {
    this.kernel = new NotebookKernel(host, this);
    this.assist = this.kernel.assist;
    this.variables = this.kernel.variables;
    this.dataViewer = this.kernel.dataViewer;
  }

  get path(): string {
    return this.model.path;
  }

  /**
   * The document as the wire carries it. With `firstCells`, only that many cells (and `pendingCells` for the rest):
   * copying and sending a 20 MB notebook's every output before its first screen could paint was most of its open.
   */
  document(options: { firstCells?: number } = {}): NotebookDocument {
    const model = this.model;
    const { metadata, nbformat, nbformat_minor } = model.json;
    const total = model.cells.length;
    const sent = Math.min(total, options.firstCells ?? total);
    return {
      path: model.path,
      nbformat,
      nbformat_minor,
      metadata: structuredClone(metadata ?? {}),
      cells: model.cells.slice(0, sent).map((cell) => model.wireCell(cell)),
      ...(options.firstCells !== undefined ? { pendingCells: total - sent } : {}),
      dirty: model.dirty,
      rev: model.rev,
      diskHash: model.diskHash,
      kernel: this.kernel.info,
      warnings: [...model.warnings],
    };
  }

  /** Cells of the document a caller holds at `rev` over `diskHash`; stale once the notebook moved on from it. */
  cellRange(range: { from: number; count: number; rev: number; diskHash: string }): {
    cells: NotebookCell[];
    stale: boolean;
  } {
    const model = this.model;
    if (model.rev !== range.rev || model.diskHash !== range.diskHash) return { cells: [], stale: true };
    const cells = model.cells.slice(range.from, range.from + range.count).map((cell) => model.wireCell(cell));
    return { cells, stale: false };
  }

  /** Starts the kernel once the open's reply is on its way (see NotebookKernel.startKernelSoon). */
  startKernelSoon(): void {
    this.kernel.startKernelSoon();
  }

  // --- the file -------------------------------------------------------------------------------

  /** Writes the notebook as Jupyter formats it. A clean notebook is not rewritten (its bytes stay as they are). */
  async save(options: {
    force?: boolean;
    origin?: Origin;
  }): Promise<{ saved: boolean; diskHash: string; rev: number }> {
    const model = this.model;
    if (!model.dirty) return { saved: false, diskHash: model.diskHash, rev: model.rev };
    // The Agent's save leaves the file's format alone (a 4.4 file stays 4.4); the operator's upgrades it.
    const keepFormat = options.origin === 'agent';
    const written = await this.persist(keepFormat, async (text) => {
      try {
        return await this.host.workspace.write(model.path, text, {
          origin: options.origin ?? 'operator',
          expectedHash: options.force || !model.diskHash ? undefined : model.diskHash,
        });
      } catch (err) {
        if (isKilnError(err, 'E_CHANGED_ON_DISK')) {
          const hash = err.details?.diskHash ?? null;
          this.host.events.conflict({
            path: model.path,
            diskHash: hash,
            message: `${model.path} changed on disk since Kiln read it. Reload it, or save again to overwrite.`,
          });
        }
        throw err;
      }
    });
    this.startConflict = null;
    if (!model.dirty) this.host.events.dirty({ path: model.path, dirty: false, rev: model.rev });
    return { saved: true, diskHash: written.hash, rev: model.rev };
  }

  /** Writes the notebook to a new file `to` (never over an existing one) and goes on there, kernel and Jupyter session included. */
  async saveAs(to: string, options: ChangeOptions): Promise<void> {
    await this.persist(false, (text) =>
      this.host.workspace.createFile(to, text, { origin: options.origin ?? 'operator' }),
    );
    this.movedTo(to);
    this.host.events.dirty({ path: to, dirty: this.model.dirty, rev: this.model.rev });
  }

  /** The file was renamed or moved: the model (with its unsaved edits) and the Jupyter session follow. */
  movedTo(path: string): void {
    this.model.path = path;
    this.kernel.movedTo(path);
  }

  /** Re-reads the file, dropping unsaved changes; the kernel keeps running. */
  revert(): Promise<NotebookDocument> {
    return this.diskReads.run(async () => {
      this.replaceModel(await this.host.workspace.read(this.path));
      this.startConflict = null;
      const document = this.document();
      this.host.events.changed({ path: this.path, document, reason: 'reverted' });
      return document;
    });
  }

  /**
   * The file changed on disk (the watcher saw it, origin external). Clean: reloaded and announced with
   * notebook.changed. Dirty: notebook.conflict. Our own writes (same hash) are ignored.
   */
  reloadFromDisk(diskHash?: string | null): Promise<'reloaded' | 'conflict' | 'unchanged'> {
    return this.diskReads.run(() => this.reloadNow(diskHash));
  }

  private async reloadNow(diskHash?: string | null): Promise<'reloaded' | 'conflict' | 'unchanged'> {
    if (diskHash !== undefined && diskHash === this.model.diskHash) return 'unchanged';
    let content: FileContent | null;
    try {
      content = await this.host.workspace.read(this.path);
    } catch (err) {
      if (err instanceof KilnError && err.code === 'E_NOT_FOUND') content = null;
      else throw err;
    }
    // Judged by the model as it is now: the operator may have typed during the read.
    const model = this.model;
    if (content && content.hash === model.diskHash) return 'unchanged';
    if (!content) {
      this.host.events.conflict({
        path: model.path,
        diskHash: null,
        message: `${model.path} was deleted on disk. Save to write it again, or close it.`,
      });
      return 'conflict';
    }
    if (model.dirty) {
      this.host.events.conflict({
        path: model.path,
        diskHash: content.hash,
        message: `${model.path} changed on disk while it has unsaved changes. Reload it (dropping your changes) or keep yours and save over it.`,
      });
      return 'conflict';
    }
    try {
      this.replaceModel(content);
    } catch (err) {
      const message = err instanceof KilnError ? err.message : String(err);
      this.host.events.conflict({
        path: model.path,
        diskHash: content.hash,
        message: `${model.path} changed on disk and is no longer a valid notebook (${message}). Kiln kept the version it had.`,
      });
      return 'conflict';
    }
    this.host.events.changed({ path: this.path, document: this.document(), reason: 'reloaded' });
    return 'reloaded';
  }

  /** Shuts the kernel down and forgets it (trust was revoked); a later run starts a new one once trusted. */
  stopKernel(reason: string): Promise<void> {
    return this.kernel.stop(reason);
  }

  /** Forgets the queue and shuts the kernel down. */
  close(): Promise<void> {
    return this.kernel.close();
  }

  // --- cell edits -----------------------------------------------------------------------------

  insertCell(
    args: { index?: number; cellType?: CellType; source?: string },
    options: ChangeOptions,
  ): { cell: NotebookCell; index: number; rev: number; dirty: boolean } {
    const { cell, index } = this.model.insertCell(args.index, args.cellType ?? 'code', args.source ?? '');
    return { cell: this.model.wireCell(cell), index, ...this.afterEdit(options) };
  }

  editCell(cellId: string, source: string, options: ChangeOptions): EditResult {
    this.model.editSource(cellId, source);
    return this.afterEdit(options);
  }

  /** One edit over several cells: all are checked first, so a bad id changes nothing. */
  editCells(edits: { cellId: string; source: string }[], options: ChangeOptions): EditResult {
    for (const { cellId } of edits) this.model.requireKnownType(this.model.cell(cellId));
    for (const { cellId, source } of edits) this.model.editSource(cellId, source);
    return this.afterEdit(options);
  }

  setCellType(cellId: string, cellType: CellType, options: ChangeOptions): EditResult {
    this.model.setCellType(cellId, cellType);
    return this.afterEdit(options);
  }

  moveCell(cellId: string, toIndex: number, options: ChangeOptions): EditResult {
    this.model.moveCell(cellId, toIndex);
    return this.afterEdit(options);
  }

  deleteCell(
    cellId: string,
    options: ChangeOptions,
  ): { cell: NotebookCell; index: number; rev: number; dirty: boolean } {
    const { cell, index } = this.model.deleteCell(cellId);
    this.kernel.drop(cell);
    return { cell: this.model.wireCell(cell), index, ...this.afterEdit(options) };
  }

  restoreCell(cell: NotebookCell, index: number, options: ChangeOptions): EditResult {
    this.model.restoreCell(cell, index);
    return this.afterEdit(options);
  }

  insertCells(index: number, cells: NotebookCell[], keepIds: boolean, options: ChangeOptions): InsertedCells {
    const inserted = this.model.insertCells(index, cells, keepIds);
    return {
      cells: inserted.cells.map((c) => this.model.wireCell(c)),
      index: inserted.index,
      ...this.afterEdit(options),
    };
  }

  deleteCells(cellIds: string[], options: ChangeOptions): EditResult & { removed: PlacedCell[] } {
    const removed = this.model.deleteCells(cellIds);
    for (const { cell } of removed) this.kernel.drop(cell);
    return {
      removed: removed.map(({ cell, index }) => ({ cell: this.model.wireCell(cell), index })),
      ...this.afterEdit(options),
    };
  }

  moveCells(cellIds: string[], toIndex: number, options: ChangeOptions): EditResult {
    this.model.moveCells(cellIds, toIndex);
    return this.afterEdit(options);
  }

  mergeCells(
    cellIds: string[],
    primaryId: string | undefined,
    options: ChangeOptions,
  ): EditResult & { cell: NotebookCell; index: number; removed: PlacedCell[] } {
    const merged = this.model.mergeCells(cellIds, primaryId);
    for (const { cell } of merged.removed) this.kernel.drop(cell);
    if (merged.cell.cell_type === 'code') {
      this.emitCleared(merged.cell);
    }
    return {
      cell: this.model.wireCell(merged.cell),
      index: merged.index,
      removed: merged.removed.map(({ cell, index }) => ({ cell: this.model.wireCell(cell), index })),
      ...this.afterEdit(options),
    };
  }

  splitCell(cellId: string, offsets: number[], options: ChangeOptions): InsertedCells {
    const split = this.model.splitCell(cellId, offsets);
    return { cells: split.cells.map((c) => this.model.wireCell(c)), index: split.index, ...this.afterEdit(options) };
  }

  setCellMetadata(cellId: string, metadata: Json, options: ChangeOptions): EditResult {
    this.model.setCellMetadata(cellId, metadata);
    return this.afterEdit(options);
  }

  clearOutputs(cellId: string | undefined, options: ChangeOptions): EditResult {
    const model = this.model;
    const cells = cellId === undefined ? model.cells : [model.cell(cellId)];
    for (const cell of cells) {
      if (model.clearOutputs(cell)) {
        this.emitCleared(cell);
      }
    }
    return this.afterEdit(options);
  }

  // --- execution (notebook-kernel.ts) -------------------------------------------------------

  runCell(cellId: string, allowStdin: boolean): Promise<CellRunResult> {
    return this.kernel.runCell(cellId, allowStdin);
  }

  runCells(scope: RunScope, cellId: string | undefined, allowStdin: boolean): Promise<CellRunResult[]> {
    return this.kernel.runCells(scope, cellId, allowStdin);
  }

  interrupt(): Promise<{ interrupted: boolean }> {
    return this.kernel.interrupt();
  }

  restart(): Promise<KernelInfo> {
    return this.kernel.restart();
  }

  reconnect(): Promise<KernelInfo> {
    return this.kernel.reconnect();
  }

  /** Switches to another kernelspec and records it in the notebook's metadata. */
  async changeKernel(spec: KernelSpecInfo): Promise<KernelInfo> {
    const info = await this.kernel.changeKernel(spec.name);
    this.model.setKernelspec({ name: spec.name, display_name: spec.displayName, language: spec.language });
    this.afterEdit({});
    return info;
  }

  debugKernel(): Promise<{ connection: Kernel.IKernelConnection; info: KernelInfo } | null> {
    return this.kernel.debugKernel();
  }

  inputReply(value: string): { accepted: boolean } {
    return this.kernel.inputReply(value);
  }

  // --- internals ------------------------------------------------------------------------------

  /** Validates, serialises and writes the notebook through `write`; what was written becomes the disk state. */
  private async persist(keepFormat: boolean, write: (text: string) => Promise<WriteResult>): Promise<WriteResult> {
    const model = this.model;
    const json = model.diskJson(keepFormat);
    const problem = validateNotebook(json, json.nbformat_minor);
    if (problem)
      throw new KilnError(
        'E_INVALID_NOTEBOOK',
        `${model.path} was not saved because it would not be a valid notebook: ${problem}`,
      );
    const rev = model.rev;
    const idless = keepFormat && model.idlessMinor !== null;
    const written = await write(serializeNotebook(json));
    // Written without ids, the file is still one without ids; written with them, it is 4.5 from now on.
    if (!idless) {
      model.json.nbformat_minor = json.nbformat_minor;
      model.idlessMinor = null;
    }
    model.diskHash = written.hash;
    // Outputs may have arrived while writing; those keep the notebook dirty.
    if (model.rev === rev) model.dirty = false;
    return written;
  }

  private replaceModel(content: FileContent): void {
    // Checked here too: the watcher's reload reads the file itself, and a binary file must not parse as ''.
    const parsed = parseNotebook(notebookText(this.path, content), this.path);
    this.kernel.abortRuns();
    this.model = modelOf(this.path, parsed, content.hash, false);
  }

  private afterEdit(options: ChangeOptions): EditResult {
    const model = this.model;
    this.host.events.dirty({ path: model.path, dirty: model.dirty, rev: model.rev });
    if (options.origin && options.origin !== 'operator') {
      this.host.events.changed({ path: model.path, document: this.document(), reason: 'edited' });
    }
    return { rev: model.rev, dirty: model.dirty };
  }

  /** An edit cleared a cell's outputs: it is shown as the queue has it, without a count. */
  private emitCleared(cell: CellJson): void {
    this.host.events.output({
      path: this.path,
      cellId: cell.id,
      rev: this.model.rev,
      change: { kind: 'clear' },
    });
    this.host.events.cellState({
      path: this.path,
      cellId: cell.id,
      state: this.kernel.stateOf(cell),
      execution_count: null,
    });
  }
}

/** The model of a notebook as parsed, knowing whether its file has cell ids. */
function modelOf(path: string, parsed: ParsedNotebook, diskHash: string, dirty: boolean): NotebookModel {
  const model = new NotebookModel(path, parsed.json, diskHash, parsed.warnings, dirty);
  model.idlessMinor = parsed.idlessMinor ?? null;
  return model;
}

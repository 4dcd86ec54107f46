import type { CellRunResult, CellType, NotebookDocument } from '../../shared/contract';
import type { NotebookSaved } from '../../shared/contract/verbs';
import { KilnError } from '../../shared/errors';
import type { NotebookService } from '../notebook';
import type { NotebookVerbTarget } from './notebook-target';

export interface NotebookAdapterOptions {
  notebooks: NotebookService;
  /**
   * When to save after an agent's change. 'if-clean' (default): only when the notebook had no unsaved changes
   * before, so the operator's own unsaved edits are never written behind their back. 'always' suits a
   * process of its own (the MCP server), where the file is the only thing others see.
   */
  autosave?: 'if-clean' | 'always' | 'never';
  /**
   * Re-read an open notebook before each change if its file changed on disk. For a process without a watcher
   * (the MCP server), so an operator's save in a Kiln window is built on rather than overwritten or refused.
   */
  syncFromDisk?: boolean;
  /**
   * An agent's change that stayed in the open notebook, unsaved (over the operator's unsaved edits): its bytes as a
   * save would write them before and after, and the file's hash they are based on. What the Agent turn's review
   * reads, since nothing of it reaches local history until the operator saves.
   */
  onUnsavedChange?: (notebook: string, before: string, after: string, diskHash: string | null) => void;
}

/**
 * The notebook verbs on the NotebookService: edits are made with origin 'agent', so an open notebook
 * re-renders live in the UI (notebook.changed), and are saved per the autosave policy.
 */
export class NotebookServiceVerbTarget implements NotebookVerbTarget {
  private readonly notebooks: NotebookService;
  private readonly autosave: NonNullable<NotebookAdapterOptions['autosave']>;
  private readonly syncFromDisk: boolean;
  private readonly onUnsavedChange: NotebookAdapterOptions['onUnsavedChange'];

  constructor(options: NotebookAdapterOptions) {
    this.notebooks = options.notebooks;
    this.onUnsavedChange = options.onUnsavedChange;
    this.autosave = options.autosave ?? 'if-clean';
    this.syncFromDisk = options.syncFromDisk ?? false;
  }

  async appendCell(
    notebook: string,
    source: string,
    cellType: CellType,
  ): Promise<{ cell_id: string; index: number } & NotebookSaved> {
    return this.change(notebook, async () => {
      const { cell, index } = await this.notebooks.insertCell(notebook, { cellType, source }, { origin: 'agent' });
      return { cell_id: cell.id, index };
    });
  }

  async runNewCell(notebook: string, source: string): Promise<CellRunResult & NotebookSaved> {
    // Refused before the cell is added: nothing of the Agent's request is half done.
    this.notebooks.assertAgentMayRun(notebook);
    return this.change(notebook, async () => {
      const { cell } = await this.notebooks.insertCell(notebook, { cellType: 'code', source }, { origin: 'agent' });
      return this.notebooks.runCell(notebook, cell.id, { allowStdin: false });
    });
  }

  async editCell(
    notebook: string,
    cellId: string,
    source: string,
    cellType?: CellType,
  ): Promise<{ cell_id: string; source_len: number } & NotebookSaved> {
    return this.change(notebook, async (document) => {
      const cell = findCell(document, cellId);
      await this.notebooks.editCell(notebook, cellId, source, { origin: 'agent' });
      if (cellType && cellType !== cell.cell_type)
        await this.notebooks.setCellType(notebook, cellId, cellType, { origin: 'agent' });
      return { cell_id: cellId, source_len: source.length };
    });
  }

  async deleteCell(
    notebook: string,
    cellId: string,
  ): Promise<{ cell_id: string; remaining_cells: number } & NotebookSaved> {
    return this.change(notebook, async (document) => {
      findCell(document, cellId);
      await this.notebooks.deleteCell(notebook, cellId, { origin: 'agent' });
      return { cell_id: cellId, remaining_cells: (await this.notebooks.get(notebook)).cells.length };
    });
  }

  async rerunCell(notebook: string, cellId: string): Promise<CellRunResult & NotebookSaved> {
    return this.change(notebook, async (document) => {
      findCell(document, cellId);
      this.notebooks.assertAgentMayRun(notebook);
      return this.notebooks.runCell(notebook, cellId, { allowStdin: false });
    });
  }

  /**
   * Opens the notebook if needed (an unknown file is E_NOT_FOUND naming it), applies the change, then saves
   * per policy, and says whether the change reached disk.
   */
  private async change<T>(
    notebook: string,
    apply: (document: NotebookDocument) => Promise<T>,
  ): Promise<T & NotebookSaved> {
    let document: NotebookDocument;
    try {
      if (this.syncFromDisk && this.notebooks.isOpen(notebook)) await this.notebooks.reloadFromDisk(notebook);
      document = await this.notebooks.open(notebook);
    } catch (err) {
      if (err instanceof KilnError && err.code === 'E_NOT_FOUND') {
        throw new KilnError('E_NOT_FOUND', `The notebook "${notebook}" does not exist`, { notebook });
      }
      throw err;
    }
    const wasDirty = document.dirty;
    const before = this.unsavedBefore(notebook, document, !this.savesAfter(wasDirty));
    let result: T;
    try {
      result = await apply(document);
    } finally {
      // A verb that failed half way (a run that raised) may still have changed the notebook.
      if (!this.savesAfter(wasDirty)) this.noteUnsaved(notebook, before);
    }
    if (this.savesAfter(wasDirty)) {
      await this.notebooks.save(notebook, { origin: 'agent' });
      return { ...result, saved: true };
    }
    const not_saved_reason = wasDirty
      ? `${notebook} has unsaved edits by the operator: the change is in the open notebook they see and reaches disk when they save it.`
      : `${notebook} is not saved automatically here: the change reaches disk when the operator saves it.`;
    return { ...result, saved: false, not_saved_reason };
  }

  private savesAfter(wasDirty: boolean): boolean {
    return this.autosave === 'always' || (this.autosave === 'if-clean' && !wasDirty);
  }

  /**
   * The open notebook's text before a change that will stay unsaved, and the disk version it was made over. In the
   * file's own format (a 4.4 file without ids), as the turn's review reads the open notebook: both sides alike. A
   * clean one too (autosave 'never'): what the agent leaves unsaved is recorded whether or not the operator had edits.
   */
  private unsavedBefore(
    notebook: string,
    document: NotebookDocument,
    staysUnsaved: boolean,
  ): { text: string; baseHash: string | null } | null {
    // The open document says whether it is dirty and over which disk version: the notebook is serialized once.
    const text = staysUnsaved ? this.notebooks.unsavedText(notebook, true, true) : null;
    return typeof text === 'string' ? { text, baseHash: document.diskHash || null } : null;
  }

  private noteUnsaved(notebook: string, before: { text: string; baseHash: string | null } | null): void {
    const after = this.notebooks.unsavedText(notebook, true, true);
    if (before && typeof after === 'string') this.onUnsavedChange?.(notebook, before.text, after, before.baseHash);
  }
}

function findCell(document: NotebookDocument, cellId: string): NotebookDocument['cells'][number] {
  const cell = document.cells.find((candidate) => candidate.id === cellId);
  if (!cell)
    throw new KilnError('E_NOT_FOUND', `No cell with id "${cellId}" in the notebook "${document.path}"`, { cellId });
  return cell;
}

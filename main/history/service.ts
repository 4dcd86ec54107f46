import * as fs from 'node:fs/promises';
import type { historyRequests } from '../../shared/contract';
import type { BackupListing, FsChange, HistoryEntry, HistoryVersion, WriteResult } from '../../shared/contract';
import { SerialQueue } from '../../shared/base/serial-queue';
import type { Event } from '../../shared/base/event';
import type { IDisposable } from '../../shared/base/lifecycle';
import { KilnError } from '../../shared/errors';
import type { HandlersFor } from '../router';
import { restoreCellText } from '../notebook';
import { decodeText, type Workspace } from '../workspace';
import { withWriteCause } from './cause';
import type { BackupStore } from './backups';
import type { HistoryStore } from './store';
import { TurnNotebooks } from './notebook-turns';
import { TurnUndo } from './undo';
import type { UnsavedAgentEdits } from './unsaved-agent-edits';
import { createLogger } from '../log';

const log = createLogger('history');

export interface HistoryServiceOptions {
  store: HistoryStore;
  /** Hot-exit backups of dirty buffers. */
  backups: BackupStore;
  workspace: Workspace;
  /** Whether a path is left out of history (`watch.exclude`, `.git`, `node_modules`). */
  excluded: (rel: string) => boolean;
  /** The open notebook's bytes in its file's format (4.4 stays id-less): null when clean, undefined when not open. */
  unsavedNotebookText?: (rel: string) => string | null | undefined;
  /** An Agent turn's changes to notebooks open with unsaved edits (see unsaved-agent-edits.ts). */
  unsavedAgentEdits?: UnsavedAgentEdits;
}

/**
 * Local history for the app: the Timeline's channels, restores written through the workspace like any save,
 * and the change feed followed (moves re-key history; another program's change to a file the operator has
 * open, or one with history, is kept as the version that program left, as VS Code does).
 */
export class HistoryService {
  private readonly store: HistoryStore;
  readonly backups: BackupStore;
  readonly turns: TurnUndo;
  readonly turnNotebooks: TurnNotebooks;
  private readonly workspace: Workspace;
  private readonly opened = new Set<string>();
  /** Moves re-key history in order; a look at history waits for the moves already reported. */
  private readonly moves = new SerialQueue();

  constructor(private readonly options: HistoryServiceOptions) {
    this.store = options.store;
    this.backups = options.backups;
    this.turnNotebooks = new TurnNotebooks(
      options.store,
      options.workspace,
      options.unsavedNotebookText,
      options.unsavedAgentEdits,
    );
    this.turns = new TurnUndo(options.store, options.workspace, this.turnNotebooks);
    this.workspace = options.workspace;
  }

  /** Every hot-exit backup, each saying whether its file is gone (then it waits in "Recovered files"). */
  async listBackups(): Promise<BackupListing[]> {
    const backups = await this.backups.list();
    return Promise.all(
      backups.map(async (backup) => ({
        ...backup,
        missing: !(await this.workspace
          .exists(backup.path)
          .catch(
            log.caught("a backup's path cannot be checked (outside the workspace now?); shown as missing", false),
          )),
      })),
    );
  }

  /** The file as a backup's base: its text and hash now. */
  readDisk(rel: string): Promise<{ text: string | null; hash: string; truncated: boolean }> {
    return this.workspace.read(rel);
  }

  normalize(rel: string): string {
    return this.workspace.normalize(rel);
  }

  /** A file the operator opened: from now on another program's changes to it are kept. */
  noteOpened(rel: string): void {
    this.opened.add(rel);
  }

  /** Follows what the operator opens (the workspace channels' reads); dispose the result to stop. */
  followOpened(onDidShow: Event<{ path: string; kind: 'dir' | 'file' }>): IDisposable {
    return onDidShow(({ path, kind }) => {
      if (kind === 'file') this.noteOpened(path);
    });
  }

  async list(rel: string): Promise<HistoryEntry[]> {
    await this.moves.whenIdle();
    return this.store.list(this.workspace.normalize(rel));
  }

  async read(rel: string, id: string): Promise<HistoryVersion> {
    await this.moves.whenIdle();
    const { entry, bytes } = await this.store.read(this.workspace.normalize(rel), id);
    return { entry, text: decodeText(bytes).text };
  }

  /**
   * Writes a version back over the file, only if the file still has `expectedHash` (null: only if it is
   * still gone). What it replaces is recorded first, so a restore can itself be undone.
   */
  async restore(rel: string, id: string, expectedHash: string | null): Promise<WriteResult> {
    const { text } = await this.read(rel, id);
    if (text === null) throw new KilnError('E_BAD_REQUEST', `That version of "${rel}" is binary; Kiln restores text`);
    return withWriteCause({ restoring: true }, () =>
      expectedHash === null
        ? this.workspace.createFile(rel, text).catch((err) => {
            if (err instanceof KilnError && err.code === 'E_EXISTS') {
              throw new KilnError('E_CHANGED_ON_DISK', `${rel} was created on disk since the version was shown`, {
                path: rel,
                diskHash: null,
                baselineHash: '',
              });
            }
            throw err;
          })
        : this.workspace.write(rel, text, { origin: 'operator', expectedHash }),
    );
  }

  /**
   * One cell of a notebook's version put back (see `history.restoreCell`): into `buffer` when the notebook is
   * open as text (returned, not written), else into the file, written as a restore only over the bytes it read.
   */
  async restoreCell(
    rel: string,
    id: string,
    cellIndex: number,
    buffer: string | undefined,
  ): Promise<{ text: string; written: WriteResult | null }> {
    const { text: version } = await this.read(rel, id);
    if (version === null) throw new KilnError('E_BAD_REQUEST', `That version of "${rel}" is binary, not a notebook`);
    if (buffer !== undefined) return { text: restoreCellText(buffer, version, cellIndex), written: null };
    const file = await this.workspace.read(rel);
    if (file.text === null || file.truncated) {
      const reason = `${rel} is ${file.text === null ? 'not text' : 'too large to read whole'}`;
      throw new KilnError('E_INVALID_NOTEBOOK', `Cannot restore the cell: ${reason}`, { reason });
    }
    const text = restoreCellText(file.text, version, cellIndex);
    const written = await withWriteCause({ restoring: true }, () =>
      this.workspace.write(rel, text, { origin: 'operator', expectedHash: file.hash }),
    );
    return { text, written };
  }

  /** Follows the change feed; never throws (history must not disturb the feed's other owners). */
  async applyChange(change: FsChange): Promise<void> {
    try {
      if (change.type === 'moved') {
        for (const rel of [...this.opened]) {
          if (rel === change.from || rel.startsWith(`${change.from}/`)) {
            this.opened.delete(rel);
            this.opened.add(change.to + rel.slice(change.from.length));
          }
        }
        this.options.unsavedAgentEdits?.applyMove(change.from, change.to);
        await this.moves.run(async () => {
          await this.store.applyMove(change.from, change.to, change.isDir);
          await this.backups.applyMove(change.from, change.to);
        });
        return;
      }
      // A batch is Kiln's own (never external): its versions were kept as it was made.
      if (change.origin !== 'external' || change.isDir || change.type === 'deleted' || change.type === 'createdFiles')
        return;
      if (this.options.excluded(change.path)) return;
      if (!this.opened.has(change.path) && !(await this.store.has(change.path))) return;
      const abs = await this.workspace.resolve(change.path);
      const info = await fs.lstat(abs);
      if (!info.isFile() || info.size > this.store.limits.maxFileBytes) return;
      await this.store.record({
        path: change.path,
        bytes: await fs.readFile(abs),
        origin: 'external',
        reason: 'external',
      });
    } catch {
      // expected: gone again, or unreadable: there is no version to keep.
    }
  }
}

type HistoryChannel = Exclude<keyof typeof historyRequests, 'window.dirty' | 'window.close'>;

export function historyHandlers(history: HistoryService): HandlersFor<HistoryChannel> {
  return {
    'backup.save': async ({ path, text, baseHash, version }) => {
      await history.backups.save({ path, text, baseHash, version });
      return { saved: true };
    },
    'backup.patch': async (patch) => ({ saved: await history.backups.patch(patch, (rel) => history.readDisk(rel)) }),
    'backup.discard': async ({ path }) => ({ discarded: await history.backups.discard(path) }),
    'backup.list': async () => ({ backups: await history.listBackups() }),
    'history.turn': async ({ turn }) => ({
      turn,
      files: await history.turns.files(turn),
      undone: await history.turns.undoneState(turn),
    }),
    'history.undoTurn': ({ turn, paths, force }) => history.turns.undo(turn, { paths, force }),
    'history.turnNotebooks': async ({ turn }) => ({ notebooks: await history.turnNotebooks.notebooks(turn) }),
    'history.notebookTurnsToReview': async ({ path }) => ({
      turns: await history.turnNotebooks.toReview(history.normalize(path)),
    }),
    'history.turnNotebookReview': ({ turn, path }) => history.turnNotebooks.review(turn, history.normalize(path)),
    'history.decideTurnCells': ({ turn, path, changeIds, decision, write }) =>
      history.turnNotebooks.decide(turn, history.normalize(path), changeIds, decision, write ?? false),
    'history.list': async ({ path }) => ({ path, entries: await history.list(path) }),
    'history.read': ({ path, id }) => history.read(path, id),
    'history.restore': ({ path, id, expectedHash }) => history.restore(path, id, expectedHash),
    'history.restoreCell': ({ path, id, cellIndex, buffer }) => history.restoreCell(path, id, cellIndex, buffer),
  };
}

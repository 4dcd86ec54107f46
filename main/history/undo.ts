import type { HistoryEntry, TurnConflict, TurnFile, UndoTurnResult } from '../../shared/contract';
import { KilnError } from '../../shared/errors';
import { decodeText, type EntryState, type Workspace } from '../workspace';
import { withWriteCause } from './cause';
import type { TurnNotebooks } from './notebook-turns';
import type { HistoryStore } from './store';
import { createLogger } from '../log';

const log = createLogger('history.undo');

/** The audit log's steps stay when a turn is undone: they record what ran. */
const AUDIT_STEP = /^scripts(?:$|\/step_\d+)/;

/** A conflict's texts are shown in a diff: larger (or binary) contents are named, not shown. */
const SHOWN_TEXT_BYTES = 4 * 1024 * 1024;

/** One entry's part in a turn: its first record (what was there before) and its last (what the turn left). */
interface FileInTurn {
  path: string;
  first: HistoryEntry;
  last: HistoryEntry;
}

/** What the turn left at a path: null for nothing; else the kind and content hash undo expects to find there. */
type Left = { kind: 'file' | 'dir' | 'symlink'; hash: string | null } | null;

const TOO_LARGE = 'undo cannot put it back: its version before the turn was too large to keep in local history';

/** The undo of turn `turn` is itself checkpoint `undo:<turn>`; undoing that redoes the turn. */
export function undoCheckpoint(turn: string): string {
  return turn.startsWith('undo:') ? turn.slice('undo:'.length) : `undo:${turn}`;
}

/**
 * Undo of an Agent turn or MCP batch from local history: every file, link and folder goes back to what it was
 * before the turn (content and permission bits), through the workspace like any save, and only where the entry
 * is still what the turn left.
 */
export class TurnUndo {
  constructor(
    private readonly store: HistoryStore,
    private readonly workspace: Workspace,
    /** Notebooks changed since the turn are undone cell by cell: the turn's cells back, later edits kept. */
    private readonly notebooks?: TurnNotebooks,
  ) {}

  async files(turn: string): Promise<TurnFile[]> {
    const files = await this.filesOf(turn);
    // Notebooks the turn changed only in the open notebook (unsaved): not in local history, listed all the same.
    const unsaved = this.unsavedOnly(turn, files).map((path): TurnFile => ({ path, change: 'changed' }));
    return files
      .map(({ path, first, last }): TurnFile => {
        const kind = (first.reason === 'create' ? first.kind : (last.kind ?? first.kind)) ?? 'file';
        return {
          path,
          change: first.reason === 'create' ? 'created' : last.reason === 'delete' ? 'deleted' : 'changed',
          ...(kind !== 'file' ? { kind } : {}),
          ...(first.contentNotKept ? { cannotUndo: TOO_LARGE } : {}),
        };
      })
      .concat(unsaved);
  }

  /** The notebooks of the turn's changes kept only for the open notebook (none of it in local history). */
  private unsavedOnly(turn: string, files: readonly FileInTurn[]): string[] {
    return (this.notebooks?.unsavedPaths(turn) ?? []).filter((path) => !files.some((file) => file.path === path));
  }

  /**
   * Whether the turn stands undone, from history alone (so it holds across reloads and restarts): its undo
   * checkpoint wrote after the turn last did (a redo writes under the turn again). `restored` are the files that
   * undo put back.
   */
  async undoneState(turn: string): Promise<{ undo: string; restored: string[] } | null> {
    const undo = undoCheckpoint(turn);
    const undoEntries = await this.store.entriesOfTurn(undo);
    if (undoEntries.length === 0) return null;
    const lastOfTurn = (await this.store.entriesOfTurn(turn)).at(-1)?.entry.id ?? '';
    const since = undoEntries.filter(({ entry }) => entry.id > lastOfTurn);
    if (since.length === 0) return null;
    return { undo, restored: [...new Set(since.map(({ current }) => current))] };
  }

  async undo(turn: string, options: { paths?: string[]; force?: boolean } = {}): Promise<UndoTurnResult> {
    const files = await this.filesOf(turn);
    const all = files.filter((file) => !options.paths || options.paths.includes(file.path));
    const unsaved = this.unsavedOnly(turn, files).filter((path) => !options.paths || options.paths.includes(path));
    if (all.length === 0 && unsaved.length === 0 && !options.paths) {
      // The undo of a turn that changed only open notebooks, unsaved: it was made in those notebooks, not on disk.
      const redoInNotebooks =
        turn.startsWith('undo:') && (this.notebooks?.unsavedPaths(undoCheckpoint(turn)).length ?? 0) > 0;
      throw new KilnError(
        'E_NOT_FOUND',
        redoInNotebooks
          ? "Nothing to redo from local history: the turn's changes were undone in the open notebook, whose undo (Z) brings them back"
          : 'That turn changed no file that local history still holds',
      );
    }
    const undo = undoCheckpoint(turn);
    const restored: string[] = [];
    const conflicts: TurnConflict[] = [];
    const notUndone: { path: string; why: string }[] = [];
    // Folders the turn deleted first, parents first; then files and links; then the folders the turn made,
    // deepest first, once what the turn put in them is gone.
    const made = (file: FileInTurn) => file.first.reason === 'create' && file.first.kind === 'dir';
    const gone = (file: FileInTurn) => file.first.reason !== 'create' && file.first.kind === 'dir';
    const order = [
      ...all.filter(gone).sort((a, b) => (a.path < b.path ? -1 : 1)),
      ...all.filter((file) => !made(file) && !gone(file)),
      ...all.filter(made).sort((a, b) => (a.path < b.path ? 1 : -1)),
    ];
    for (const file of order) {
      if (file.first.contentNotKept) {
        notUndone.push({ path: file.path, why: TOO_LARGE });
        continue;
      }
      const current = await this.workspace.entryState(file.path).catch((err) => {
        if (err instanceof KilnError && (err.code === 'E_NOT_FOUND' || err.code === 'E_NOT_A_DIRECTORY')) return null;
        throw err;
      });
      if (!untouched(current, leftBy(file.last)) && !options.force) {
        if (await this.undoNotebookCells(turn, file, current, undo)) {
          restored.push(file.path);
          continue;
        }
        conflicts.push({
          path: file.path,
          currentText: await this.currentText(file.path, current),
          beforeText: file.first.reason === 'create' ? null : await this.beforeText(file.path, file.first),
        });
        continue;
      }
      const done = await withWriteCause({ restoring: true, turn: undo }, () => this.putBack(file, current));
      if (done === true) restored.push(file.path);
      else if (done) notUndone.push({ path: file.path, why: done });
    }
    for (const path of unsaved) {
      const why = await this.undoUnsavedNotebook(turn, path, undo);
      if (why) notUndone.push({ path, why });
      else restored.push(path);
    }
    return { undo, restored, conflicts, ...(notUndone.length ? { notUndone } : {}) };
  }

  /**
   * A notebook the turn changed in the open notebook, unsaved: its cells are undone there by the window (one step
   * of the notebook's undo each, the operator's unsaved edits kept), so here it is done once nothing of the turn
   * stands in it. Saved since, it is undone on disk cell by cell. Resolves null when done, else why not.
   */
  private async undoUnsavedNotebook(turn: string, path: string, undo: string): Promise<string | null> {
    const state = await this.notebooks!.unsavedState(turn, path).catch(
      log.caught('the notebook is not readable as cells now: said in the turn as not undone', 'unreadable' as const),
    );
    if (state === 'done' || state === 'discarded') return null;
    if (state === 'open')
      return 'its changes are in the open notebook, unsaved: undo them there (Review cells), or save it first';
    const undone = state === 'saved' ? await this.notebooks!.undoAll(turn, path) : null;
    if (!undone) return 'its cells could not be undone without losing later edits: undo them one by one in the review';
    await withWriteCause({ restoring: true, turn: undo }, () =>
      this.workspace.write(path, undone.text, { origin: 'operator', expectedHash: undone.hash }),
    );
    return null;
  }

  /**
   * A notebook the turn changed and someone changed since: the turn's cells go back (with their outputs before
   * the turn), every other cell stays as it is now. False when that is not possible (then it is a conflict).
   */
  private async undoNotebookCells(
    turn: string,
    file: FileInTurn,
    current: EntryState | null,
    undo: string,
  ): Promise<boolean> {
    if (!this.notebooks || current?.kind !== 'file' || file.last.reason === 'delete') return false;
    if (!file.path.toLowerCase().endsWith('.ipynb')) return false;
    const undone = await this.notebooks.undoAll(turn, file.path);
    if (!undone || undone.hash !== current.hash) return false;
    await withWriteCause({ restoring: true, turn: undo }, () =>
      this.workspace.write(file.path, undone.text, { origin: 'operator', expectedHash: undone.hash }),
    );
    return true;
  }

  /** Puts one entry back as it was before the turn: true, or why it could not (a folder that holds files now). */
  private async putBack(file: FileInTurn, current: EntryState | null): Promise<true | string | null> {
    const before = file.first;
    if (before.reason === 'create') {
      if (!current) return true;
      if (before.kind === 'dir') {
        if (current.kind !== 'dir') return null;
        const left = await this.workspace.list(file.path, { showHidden: true });
        if (left.length > 0) return 'a folder the turn made; it holds files now, so it stays';
      }
      // To the trash where there is one; either way a file's content is in history, under the undo's checkpoint.
      await this.remove(file.path);
      return true;
    }
    if (before.kind === 'dir') {
      if (current?.kind !== 'dir') await this.workspace.createDir(file.path, { origin: 'operator' });
      return true;
    }
    const { bytes } = await this.store.read(file.path, before.id);
    // Another kind of entry in its place (a link where a file was, a file where a link was) goes first, so a
    // write never follows a link the turn made.
    const kind = before.kind ?? 'file';
    if (current && current.kind !== kind) {
      await this.remove(file.path);
      current = null;
    }
    if (kind === 'symlink') {
      await this.workspace.writeLink(file.path, bytes.toString('utf8'), { origin: 'operator' });
    } else if (current) {
      await this.workspace.writeBytes(file.path, bytes, {
        origin: 'operator',
        expectedHash: current.hash,
        ...(before.mode !== undefined ? { mode: before.mode } : {}),
      });
    } else {
      await this.workspace.writeBytes(file.path, bytes, {
        origin: 'operator',
        createParents: true,
        ...(before.mode !== undefined ? { mode: before.mode } : {}),
      });
    }
    return true;
  }

  private async remove(rel: string): Promise<void> {
    try {
      await this.workspace.delete(rel, { origin: 'operator' });
    } catch (err) {
      if (!(err instanceof KilnError && err.code === 'E_PERMISSION')) throw err;
      await this.workspace.delete(rel, { origin: 'operator', permanent: true });
    }
  }

  private async filesOf(turn: string): Promise<FileInTurn[]> {
    // The turns' unsaved changes an earlier run kept are loaded before the turn's notebooks are looked at.
    await this.notebooks?.loaded();
    const byPath = new Map<string, FileInTurn>();
    for (const { current, entry } of await this.store.entriesOfTurn(turn)) {
      if (AUDIT_STEP.test(current)) continue;
      const known = byPath.get(current);
      if (known) known.last = entry;
      else byPath.set(current, { path: current, first: entry, last: entry });
    }
    return [...byPath.values()];
  }

  private async currentText(rel: string, current: EntryState | null): Promise<string | null> {
    if (!current) return null;
    if (current.kind !== 'file') return current.kind === 'dir' ? '(a folder)' : '(a symbolic link)';
    if (current.size > SHOWN_TEXT_BYTES) return `(${current.size} bytes)`;
    const read = await this.workspace
      .read(rel)
      .catch(log.caught('the current file could not be read for the undo preview; shown as binary', null));
    return read?.text ?? `(binary, ${current.size} bytes)`;
  }

  private async beforeText(rel: string, entry: HistoryEntry): Promise<string> {
    if (entry.kind === 'symlink') return `(a symbolic link to ${(await this.store.read(rel, entry.id)).bytes})`;
    if (entry.size > SHOWN_TEXT_BYTES) return `(${entry.size} bytes)`;
    const { text } = decodeText((await this.store.read(rel, entry.id)).bytes);
    return text ?? `(binary, ${entry.size} bytes)`;
  }
}

/** What the turn's last record of a path says it left there. */
function leftBy(last: HistoryEntry): Left {
  if (last.reason === 'delete') return null;
  if (last.kind === 'dir') return { kind: 'dir', hash: null };
  // A write's record names what it wrote (its kind is what it replaced: a link's writeLink leaves a link).
  return { kind: last.kind === 'symlink' ? 'symlink' : 'file', hash: last.nextHash ?? null };
}

function untouched(current: EntryState | null, left: Left): boolean {
  if (!left || !current) return left === null && current === null;
  if (left.kind === 'dir') return current.kind === 'dir';
  return current.hash === left.hash;
}

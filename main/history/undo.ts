import type { HistoryEntry, TurnConflict, TurnFile, UndoTurnResult } from '../../shared/contract';
import { KilnError } from '../../shared/errors';
import { decodeText, type Workspace } from '../workspace';
import { withWriteCause } from './cause';
import type { HistoryStore } from './store';

/** The audit log's steps stay when a turn is undone: they record what ran. */
const AUDIT_STEP = /^scripts\/step_\d+/;

/** One file's part in a turn: its first record (the content before) and its last (what the turn left). */
interface FileInTurn {
  path: string;
  first: HistoryEntry;
  last: HistoryEntry;
}

/** The undo of turn `turn` is itself checkpoint `undo:<turn>`; undoing that redoes the turn. */
export function undoCheckpoint(turn: string): string {
  return turn.startsWith('undo:') ? turn.slice('undo:'.length) : `undo:${turn}`;
}

/**
 * Undo of an Agent turn or MCP batch from local history: every file goes back to what it was before the
 * turn, through the workspace like any save, and only where the file is still what the turn left.
 */
export class TurnUndo {
  constructor(
    private readonly store: HistoryStore,
    private readonly workspace: Workspace,
  ) {}

  async files(turn: string): Promise<TurnFile[]> {
    return (await this.filesOf(turn)).map(({ path, first, last }) => ({
      path,
      change: first.reason === 'create' ? 'created' : last.reason === 'delete' ? 'deleted' : 'changed',
    }));
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
    const files = (await this.filesOf(turn)).filter((file) => !options.paths || options.paths.includes(file.path));
    if (files.length === 0 && !options.paths) {
      throw new KilnError('E_NOT_FOUND', 'That turn changed no file that local history still holds');
    }
    const undo = undoCheckpoint(turn);
    const restored: string[] = [];
    const conflicts: TurnConflict[] = [];
    for (const file of files) {
      const before = file.first.reason === 'create' ? null : await this.textOf(file.path, file.first);
      const current = await this.workspace.read(file.path).catch((err) => {
        if (err instanceof KilnError && err.code === 'E_NOT_FOUND') return null;
        throw err;
      });
      const left = file.last.reason === 'delete' ? null : (file.last.nextHash ?? null);
      const untouched = (current?.hash ?? null) === left;
      if (!untouched && !options.force) {
        conflicts.push({ path: file.path, currentText: current?.text ?? null, beforeText: before });
        continue;
      }
      await withWriteCause({ restoring: true, turn: undo }, async () => {
        if (before === null) {
          // To the trash where there is one; either way its content is in history, under the undo's checkpoint.
          if (current) await this.remove(file.path);
        } else if (current) {
          await this.workspace.write(file.path, before, { origin: 'operator', expectedHash: current.hash });
        } else {
          await this.workspace.write(file.path, before, { origin: 'operator', createParents: true });
        }
      });
      restored.push(file.path);
    }
    return { undo, restored, conflicts };
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
    const byPath = new Map<string, FileInTurn>();
    for (const { current, entry } of await this.store.entriesOfTurn(turn)) {
      if (AUDIT_STEP.test(current)) continue;
      const known = byPath.get(current);
      if (known) known.last = entry;
      else byPath.set(current, { path: current, first: entry, last: entry });
    }
    return [...byPath.values()];
  }

  private async textOf(rel: string, entry: HistoryEntry): Promise<string> {
    const { text } = decodeText((await this.store.read(rel, entry.id)).bytes);
    if (text === null) throw new KilnError('E_BAD_REQUEST', `"${rel}" was binary before the turn; Kiln restores text`);
    return text;
  }
}

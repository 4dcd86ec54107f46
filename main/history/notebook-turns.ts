import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import path from 'node:path';
import type {
  HistoryEntry,
  NotebookDiffCell,
  NotebookDiffResult,
  TurnCell,
  TurnCellDecision,
  TurnNotebook,
} from '../../shared/contract';
import { KilnError } from '../../shared/errors';
import { viewCell } from '../notebook/diff-view';
import { sidesOfSteps, turnCellReview, undoTurnCells } from '../notebook/turn-cells';
import type { Workspace } from '../workspace';
import { withWriteCause } from './cause';
import type { HistoryStore } from './store';
import type { AgentStep, UnsavedAgentEdit, UnsavedAgentEdits } from './unsaved-agent-edits';
import { createLogger } from '../log';

const log = createLogger('history.turn-notebooks');
// Gone since, binary now, or no longer a notebook: the turn's file list (and undo) says what can be done with it.
const noCells = log.caught('the notebook is gone or no longer readable as cells: not offered for review by cell', null);

/** A notebook's text, as the three sides of a turn's review need it. */
interface NotebookSides {
  base: string;
  left: string;
  /** The file on disk now, and its hash (what a write of undone cells must still find). */
  disk: { text: string; hash: string };
  /**
   * For changes the turn made to the open notebook, unsaved: `open` while they are still only there, `discarded`
   * once the operator discarded them (clean again over the same file). Absent for changes on disk (saved).
   */
  unsaved?: 'open' | 'discarded';
}

/** E_EDITED_SINCE for cells whose undo would lose the operator's later edits. */
export function editedSince(path: string, refused: readonly TurnCell[]): KilnError {
  const which = refused.map((cell) => `cell ${cell.number}: ${cell.undoRefused}`).join('; ');
  return new KilnError(
    'E_EDITED_SINCE',
    `Not undone, to keep your later edits (${which}): compare the cell in the review and change it by hand, or keep it`,
    { path, cells: refused.map((cell) => cell.number) },
  );
}

/** The errors changedElsewhere made (the turn's list says so rather than leaving the notebook out). */
const replacedElsewhere = new WeakSet<KilnError>();

/** A notebook another program replaced after the turn: what the turn left is not in local history. */
function changedElsewhere(path: string): KilnError {
  const err = new KilnError(
    'E_NOT_FOUND',
    `${path} was changed since by another program: what the turn left is not in local history, so its cells cannot be compared with the turn's`,
    { path },
  );
  replacedElsewhere.add(err);
  return err;
}

const isNotebook = (rel: string) => rel.toLowerCase().endsWith('.ipynb');

/**
 * Decisions are kept by the change's id in the turn's own diff (base → left), under this prefix: its id now changes
 * when the operator's save gives a nbformat 4.4 notebook's cells ids, and a kept cell would be offered again.
 */
const TURN_ID = 'turn:';

/** Decisions kept for this many turn-and-notebook pairs, the newest: older turns are offered for review again. */
const KEPT_DECISIONS = 500;

/** The newest Agent turns of one notebook looked at for its marks: each costs a diff, and older ones are rarely open. */
const MARKED_TURNS = 10;

/**
 * An Agent turn's notebook edits, cell by cell (the review's Keep / Undo, and "Undo this turn" on notebooks the
 * operator changed since): the notebook before the turn and what the turn left come from local history.
 * Decisions, per turn and notebook, are kept beside the workspace's history so a restart does not ask again.
 */
export class TurnNotebooks {
  private decisions: Map<string, Record<string, TurnCellDecision>> | null = null;
  private readonly file: string;

  constructor(
    private readonly store: HistoryStore,
    private readonly workspace: Workspace,
    /** The open notebook's bytes as a save would write them: null when it is clean, undefined when not open. */
    private readonly unsavedText: (rel: string) => string | null | undefined = () => undefined,
    /** The turns' changes to notebooks open with unsaved edits: not in local history until saved. */
    private readonly unsavedEdits?: UnsavedAgentEdits,
  ) {
    this.file = `${store.dir}.turn-reviews.json`;
  }

  /** Resolves once the turns' unsaved changes an earlier run kept are loaded. */
  async loaded(): Promise<void> {
    await this.unsavedEdits?.loaded();
  }

  async notebooks(turn: string): Promise<TurnNotebook[]> {
    await this.loaded();
    await this.loadDecisions();
    const out: TurnNotebook[] = [];
    for (const path of await this.notebookPaths(turn)) {
      const sides = await this.sides(turn, path).catch((err: unknown) => {
        if (err instanceof KilnError && replacedElsewhere.has(err)) return 'elsewhere' as const;
        return noCells(err);
      });
      if (sides === 'elsewhere') {
        out.push({ path, cells: [], notebookChanged: false, decided: {}, changedElsewhere: true });
        continue;
      }
      if (!sides) continue;
      if (sides.unsaved === 'discarded') {
        out.push({ ...this.describe(turn, path, null), unsaved: 'discarded' });
        continue;
      }
      out.push(this.describe(turn, path, turnCellReview(sides.base, sides.left, this.now(path, sides)), sides));
    }
    return out;
  }

  /**
   * The Agent turns whose changes to this notebook are still to review (newest first), each with its cells: what
   * an opening notebook marks without the Agent panel. One look at the file's history when no agent ever wrote it.
   */
  async toReview(path: string): Promise<Array<{ turn: string; notebook: TurnNotebook }>> {
    if (!isNotebook(path)) return [];
    await this.loaded();
    const out: Array<{ turn: string; notebook: TurnNotebook }> = [];
    const unsavedTurns = this.unsavedEdits?.turnsOf(path) ?? [];
    if (unsavedTurns.length > 0) await this.loadDecisions();
    for (const turn of unsavedTurns) {
      const notebook = await this.sides(turn, path)
        .then((sides) =>
          sides.unsaved === 'discarded'
            ? null
            : this.describe(turn, path, turnCellReview(sides.base, sides.left, this.now(path, sides)), sides),
        )
        .catch(log.caught('the open notebook is not readable as cells now: no marks to guess', null));
      if (notebook?.cells.some((cell) => !notebook.decided[cell.changeId])) out.push({ turn, notebook });
    }
    if (!(await this.store.has(path))) return out;
    const byTurn = new Map<string, HistoryEntry[]>();
    for (const entry of await this.store.list(path)) {
      if (entry.origin !== 'agent' || !entry.turn || (entry.kind ?? 'file') !== 'file') continue;
      if (unsavedTurns.includes(entry.turn)) continue;
      if (!byTurn.has(entry.turn) && byTurn.size === MARKED_TURNS) break;
      byTurn.set(entry.turn, [entry, ...(byTurn.get(entry.turn) ?? [])]);
    }
    if (byTurn.size === 0) return out;
    await this.loadDecisions();
    for (const [turn, entries] of byTurn) {
      const notebook = await this.sidesOf(path, entries)
        .then((sides) => this.describe(turn, path, turnCellReview(sides.base, sides.left, this.now(path, sides))))
        .catch(log.caught('not readable as cells now, or what the turn left is gone: no marks to guess', null));
      if (notebook?.cells.some((cell) => !notebook.decided[cell.changeId])) out.push({ turn, notebook });
    }
    return out;
  }

  async review(
    turn: string,
    path: string,
  ): Promise<{ notebook: TurnNotebook; review: NotebookDiffResult; undoAs: Record<string, NotebookDiffCell> }> {
    await this.loadDecisions();
    const sides = this.notDiscarded(path, await this.sides(turn, path));
    const unsaved = typeof this.unsavedText(path) === 'string';
    const found = turnCellReview(sides.base, sides.left, this.now(path, sides));
    return {
      notebook: this.describe(turn, path, found, sides),
      review: { ...found.review, unsaved: { base: false, next: unsaved } },
      undoAs: Object.fromEntries([...found.undoAs].map(([id, cell]) => [id, viewCell(cell, true)])),
    };
  }

  async decide(
    turn: string,
    path: string,
    changeIds: string[],
    decision: TurnCellDecision,
    write: boolean,
  ): Promise<TurnNotebook> {
    const sides = this.notDiscarded(path, await this.sides(turn, path));
    if (decision === 'undone' && write) {
      if (typeof this.unsavedText(path) === 'string')
        throw new KilnError(
          'E_CHANGED_ON_DISK',
          `${path} has unsaved edits: undo the agent's cells in the open notebook, or save it first`,
          { path, diskHash: sides.disk.hash, baselineHash: sides.disk.hash },
        );
      const { text, refused } = undoTurnCells(sides.base, sides.left, sides.disk.text, changeIds);
      if (refused.length > 0 && changeIds.every((id) => refused.some((cell) => cell.changeId === id)))
        throw editedSince(path, refused);
      // The refused ones stay standing, undecided (their cells say why): only the others are recorded undone.
      changeIds = changeIds.filter((id) => !refused.some((cell) => cell.changeId === id));
      // An operator's write (not the turn's undo checkpoint): the turn stays a turn, its other cells stand.
      if (text !== sides.disk.text)
        await withWriteCause({ restoring: true }, () =>
          this.workspace.write(path, text, { origin: 'operator', expectedHash: sides.disk.hash }),
        );
    }
    const decisions = await this.loadDecisions();
    const key = `${turn}\n${path}`;
    const decided = { ...decisions.get(key) };
    // Kept by the turn's own id (a kept change still stands, and is listed again after a save that gives ids); an
    // undone one is listed no more, so its id now is all that is needed.
    const { turnChangeIds } = turnCellReview(sides.base, sides.left, this.now(path, sides));
    for (const id of changeIds) {
      const turnId = decision === 'kept' ? turnChangeIds.get(id) : undefined;
      decided[turnId === undefined ? id : `${TURN_ID}${turnId}`] = decision;
    }
    // Newest last, so the oldest go first past the bound.
    decisions.delete(key);
    decisions.set(key, decided);
    for (const old of [...decisions.keys()].slice(0, Math.max(0, decisions.size - KEPT_DECISIONS)))
      decisions.delete(old);
    await this.saveDecisions(decisions);
    const after = await this.sides(turn, path);
    return this.describe(turn, path, turnCellReview(after.base, after.left, this.now(path, after)), after);
  }

  /**
   * "Undo this turn" on a notebook changed since the turn: every change of the turn still standing undone, every
   * later edit of other cells kept. Null when the file is no notebook the engine can read (undo then says why).
   */
  async undoAll(turn: string, path: string): Promise<{ text: string; hash: string } | null> {
    const sides = await this.sides(turn, path).catch(noCells);
    if (!sides || sides.unsaved) return null;
    try {
      const { text, refused } = undoTurnCells(sides.base, sides.left, sides.disk.text, 'all');
      // A cell whose undo would lose the operator's later edit: the whole notebook is a conflict for "Undo this
      // turn" (its cells can still be undone one by one in the review).
      if (refused.length > 0) return null;
      return { text, hash: sides.disk.hash };
    } catch (err) {
      if (err instanceof KilnError && err.code === 'E_INVALID_NOTEBOOK') return null;
      throw err;
    }
  }

  /**
   * How the turn's changes to a notebook it changed unsaved stand: `open` (only in the open notebook: undo them
   * there), `saved` (on disk now: as any turn's), `discarded` (gone: nothing to review), or `done` when Undo
   * needs no write (nothing of the turn stands). Null for a notebook whose changes the turn saved.
   */
  async unsavedState(turn: string, path: string): Promise<'open' | 'saved' | 'discarded' | 'done' | null> {
    await this.loaded();
    if (!this.unsavedEdits?.of(turn, path)) return null;
    const sides = await this.sides(turn, path);
    if (sides.unsaved === 'discarded') return 'discarded';
    const { cells, notebookChanged } = turnCellReview(sides.base, sides.left, this.now(path, sides));
    if (cells.length === 0 && !notebookChanged) return 'done';
    return sides.unsaved ?? 'saved';
  }

  /** The notebooks a turn changed only in the open notebook, unsaved (not in local history). */
  unsavedPaths(turn: string): string[] {
    return this.unsavedEdits?.pathsOf(turn) ?? [];
  }

  private describe(
    turn: string,
    path: string,
    found: ReturnType<typeof turnCellReview> | null,
    sides?: NotebookSides,
  ): TurnNotebook {
    return {
      path,
      cells: found?.cells ?? [],
      notebookChanged: found?.notebookChanged ?? false,
      decided: this.decidedNow(turn, path, found),
      ...(sides?.unsaved ? { unsaved: sides.unsaved } : {}),
    };
  }

  /** The turn's decisions on this notebook under the ids its changes have now (see TURN_ID). */
  private decidedNow(
    turn: string,
    path: string,
    found: ReturnType<typeof turnCellReview> | null,
  ): Record<string, TurnCellDecision> {
    const nowIdOf = new Map([...(found?.turnChangeIds ?? [])].map(([now, own]) => [`${TURN_ID}${own}`, now]));
    const decided: Record<string, TurnCellDecision> = {};
    for (const [id, decision] of Object.entries(this.decisions?.get(`${turn}\n${path}`) ?? {}))
      decided[nowIdOf.get(id) ?? (id.startsWith(TURN_ID) ? id.slice(TURN_ID.length) : id)] = decision;
    return decided;
  }

  /** E_NOT_FOUND for a review of changes the operator discarded with the open notebook's unsaved edits. */
  private notDiscarded(path: string, sides: NotebookSides): NotebookSides {
    if (sides.unsaved !== 'discarded') return sides;
    throw new KilnError(
      'E_NOT_FOUND',
      `The Agent's changes to ${path} were in the open notebook, unsaved, and were discarded with it: nothing of them is left to review`,
      { path },
    );
  }

  private async loadDecisions(): Promise<Map<string, Record<string, TurnCellDecision>>> {
    if (this.decisions) return this.decisions;
    const text = await fs
      .readFile(this.file, 'utf8')
      .catch(log.caught('no decisions kept yet (or unreadable): every turn is still to review', null));
    let entries: [string, Record<string, TurnCellDecision>][] = [];
    try {
      if (text) entries = Object.entries(JSON.parse(text) as Record<string, Record<string, TurnCellDecision>>);
    } catch (err) {
      log.caught('the kept decisions are not JSON (cut short?): every turn is offered again', null)(err);
    }
    this.decisions ??= new Map(entries);
    return this.decisions;
  }

  private async saveDecisions(decisions: Map<string, Record<string, TurnCellDecision>>): Promise<void> {
    const temp = `${this.file}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
    await fs.mkdir(path.dirname(this.file), { recursive: true });
    await fs.writeFile(temp, JSON.stringify(Object.fromEntries(decisions)), { mode: 0o600 });
    await fs.rename(temp, this.file);
  }

  private now(path: string, sides: NotebookSides): string {
    const unsaved = this.unsavedText(path);
    return typeof unsaved === 'string' ? unsaved : sides.disk.text;
  }

  private async notebookPaths(turn: string): Promise<string[]> {
    const paths = new Set<string>(this.unsavedPaths(turn));
    for (const { current, entry } of await this.store.entriesOfTurn(turn))
      if (isNotebook(current) && (entry.kind ?? 'file') === 'file' && !entry.contentNotKept) paths.add(current);
    return [...paths];
  }

  /** Before the turn (its first record), what it left (the version with its last write's hash), and the disk now. */
  private async sides(turn: string, path: string): Promise<NotebookSides> {
    await this.loaded();
    const mine = (await this.store.entriesOfTurn(turn)).filter(({ current }) => current === path);
    const unsaved = this.unsavedEdits?.of(turn, path);
    if (unsaved)
      return this.unsavedSides(
        path,
        unsaved,
        mine.map(({ entry }) => entry),
      );
    return this.sidesOf(
      path,
      mine.map(({ entry }) => entry),
    );
  }

  /**
   * The sides of a notebook the turn changed in the open notebook, unsaved: from its changes verb by verb, those
   * kept for the open notebook and those in local history (the turn saved it when it was clean; an operator's save
   * in the middle of the turn makes the turn's next changes saved ones), so that the operator's edits between two of
   * them are not the turn's (sidesOfSteps).
   */
  private async unsavedSides(path: string, edit: UnsavedAgentEdit, saved: HistoryEntry[]): Promise<NotebookSides> {
    const disk = await this.textOf(path).catch((err: unknown) => {
      // A notebook never saved yet: the open one is all there is.
      if (err instanceof KilnError && err.code === 'E_NOT_FOUND') return { text: '', hash: '' };
      throw err;
    });
    const steps: AgentStep[] = [];
    for (const entry of saved) {
      const before = entry.reason === 'create' ? '' : await this.version(path, entry);
      steps.push({ before, after: await this.leftBy(path, entry, disk), at: entry.at });
    }
    // A saved write is noted as it starts, an unsaved verb as it ends: on the same millisecond, the saved one first.
    steps.push(...edit.steps);
    steps.sort((a, b) => a.at - b.at);
    const { base, left } = sidesOfSteps(steps);
    const state =
      typeof this.unsavedText(path) === 'string'
        ? 'open'
        : disk.hash === (edit.diskHash ?? '')
          ? 'discarded'
          : undefined;
    return { base, left, disk, ...(state ? { unsaved: state } : {}) };
  }

  /** The sides from the turn's entries of this notebook, oldest first. */
  private async sidesOf(path: string, mine: HistoryEntry[]): Promise<NotebookSides> {
    const first = mine[0];
    const last = mine.at(-1);
    if (!first || !last || !isNotebook(path))
      throw new KilnError('E_NOT_FOUND', `That turn did not change the notebook ${path}`, { path });
    if (last.reason === 'delete') throw new KilnError('E_NOT_FOUND', `That turn deleted ${path}`, { path });
    const disk = await this.textOf(path);
    const base = first.reason === 'create' ? '' : await this.version(path, first);
    const left = await this.leftBy(path, last, disk);
    return { base, left, disk };
  }

  /** The version the turn left: the disk if unchanged since, else from history, never guessed from the disk. */
  private async leftBy(path: string, last: HistoryEntry, disk: { text: string; hash: string }): Promise<string> {
    if (!last.nextHash || last.nextHash === disk.hash) return disk.text;
    // Replaced since: the write that replaced it kept it.
    const found = (await this.store.list(path)).find((entry) => entry.hash === last.nextHash);
    if (found) return this.version(path, found);
    // Another program replaced it (its write keeps only its own version): the disk would count that program's
    // changes as the turn's, so there is nothing to compare with.
    throw changedElsewhere(path);
  }

  private async version(path: string, entry: HistoryEntry): Promise<string> {
    return (await this.store.read(path, entry.id)).bytes.toString('utf8');
  }

  private async textOf(path: string): Promise<{ text: string; hash: string }> {
    const file = await this.workspace.read(path);
    if (file.text === null || file.truncated)
      throw new KilnError('E_INVALID_NOTEBOOK', `${path} is not a notebook Kiln can review cell by cell`, {
        reason: file.text === null ? 'not text' : 'too large to read whole',
      });
    return { text: file.text, hash: file.hash };
  }
}

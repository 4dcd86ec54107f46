import { Emitter, type Event } from '../../shared/base/event';
import { rekeyAfterMove } from '../../shared/fs-change';
import { createLogger } from '../log';
import { currentWriteCause } from './cause';
import { formatAgentEdits, parseAgentEdits, type UnsavedAgentEdit } from './unsaved-agent-edits-file';

export type { AgentStep, UnsavedAgentEdit } from './unsaved-agent-edits-file';

const log = createLogger('history.unsaved-agent-edits');

/*
 * An Agent turn's changes to a notebook it left unsaved (open with the operator's unsaved edits, or a verbs policy
 * that never saves). The verbs change the open notebook and do not save it (the operator's edits are never written
 * behind their back), so nothing reaches local history and the turn's review has no "before" or "what the turn
 * left". They are kept here instead, verb by verb: the open notebook's bytes (as a save would write them) before
 * and after each verb, so the operator's edits between two verbs are not counted as the agent's. Not in local
 * history: these versions were never on disk, and local history's entries are what a write replaced, which Timeline
 * restores and "Undo this turn" writes back; an unsaved version there would be written over the file. Kept beside
 * the notebook's hot-exit backup too (see `persistIn`), so a restart that restores the notebook's text restores its
 * turns' record, and dropped from there with that backup.
 */

/** Turns kept, the newest: each holds up to two copies of a notebook's text per operator edit between verbs. */
const KEPT_TURNS = 50;
/** And at most this many characters of notebook text in all (the oldest turns go first; the newest always stays). */
const KEPT_CHARS = 256 * 1024 * 1024;

/** Where the record is kept beside each notebook's hot-exit backup (the BackupStore's side files). */
export interface AgentEditsBeside {
  keepBeside(rel: string, text: string | null): Promise<void>;
  listBeside(): Promise<string[]>;
}

const charsOf = (edit: UnsavedAgentEdit) => edit.steps.reduce((n, s) => n + s.before.length + s.after.length, 0);

export class UnsavedAgentEdits {
  /** By turn (oldest first), then by notebook path. */
  private readonly byTurn = new Map<string, Map<string, UnsavedAgentEdit>>();
  private beside: AgentEditsBeside | null = null;
  private loading: Promise<void> = Promise.resolve();
  private readonly writing = new Set<Promise<void>>();
  private readonly changed = new Emitter<{ turn: string; path: string }>();
  /**
   * A turn's unsaved changes to a notebook changed state with no write of the turn's: the notebook was saved,
   * reverted or closed without saving. The turn's list is asked again (a discard leaves nothing to review).
   */
  readonly onDidChangeTurnNotebook: Event<{ turn: string; path: string }> = this.changed.event;

  /**
   * Keeps the record beside the hot-exit backups from now on, and loads what an earlier run kept there (the
   * accessors below answer once it is loaded: `loaded()`).
   */
  persistIn(beside: AgentEditsBeside): void {
    this.beside = beside;
    this.loading = beside
      .listBeside()
      .then((files) => {
        const loaded = files
          .flatMap((file) => parseAgentEdits(file) ?? [])
          .sort((a, b) => a.edit.firstAt - b.edit.firstAt);
        for (const { turn, path, edit } of loaded) {
          let notebooks = this.byTurn.get(turn);
          if (!notebooks) this.byTurn.set(turn, (notebooks = new Map()));
          if (!notebooks.has(path)) notebooks.set(path, edit);
        }
        const newest = loaded.at(-1)?.turn;
        if (newest) this.trim(newest);
      })
      .catch(
        log.caught(
          "the Agent turns' kept unsaved changes are unreadable: the turns list those notebooks no more",
          undefined,
          'warn',
        ),
      );
  }

  /** Resolves once what an earlier run kept is loaded. */
  loaded(): Promise<void> {
    return this.loading;
  }

  /**
   * An agent's change to an open notebook that stayed unsaved: `before` and `after` are its bytes as a save would
   * write them. Kept under the turn of the write cause; a change outside an Agent turn is nobody's turn to review.
   */
  noteChange(path: string, before: string, after: string, diskHash: string | null, at = Date.now()): void {
    const turn = currentWriteCause().turn;
    if (!turn || before === after) return;
    let notebooks = this.byTurn.get(turn);
    if (!notebooks) this.byTurn.set(turn, (notebooks = new Map()));
    const known = notebooks.get(path);
    const last = known?.steps.at(-1);
    // Nothing changed it between the two verbs: one step, so memory holds two texts per operator interruption.
    const steps =
      last && last.after === before
        ? [...known!.steps.slice(0, -1), { ...last, after, at }]
        : [...(known?.steps ?? []), { before, after, at }];
    notebooks.set(path, { steps, diskHash, firstAt: known?.firstAt ?? at, at });
    this.trim(turn);
    this.persist(path);
  }

  /**
   * The notebook's backup was discarded (saved, reverted, closed without saving): its kept record went with it (in
   * memory it stays for this run, to say saved or discarded), and its turns are said to have changed.
   */
  backupDiscarded(path: string): void {
    for (const turn of this.turnsOf(path)) this.changed.fire({ turn, path });
  }

  /** Drops the oldest turns past the bounds, never `current` (a turn that lost its record lists the notebook no more). */
  private trim(current: string): void {
    let chars = 0;
    for (const notebooks of this.byTurn.values()) for (const edit of notebooks.values()) chars += charsOf(edit);
    for (const [turn, notebooks] of this.byTurn) {
      if (turn === current || (this.byTurn.size <= KEPT_TURNS && chars <= KEPT_CHARS)) continue;
      for (const edit of notebooks.values()) chars -= charsOf(edit);
      this.byTurn.delete(turn);
      for (const path of notebooks.keys()) this.persist(path);
    }
  }

  of(turn: string, path: string): UnsavedAgentEdit | undefined {
    return this.byTurn.get(turn)?.get(path);
  }

  pathsOf(turn: string): string[] {
    return [...(this.byTurn.get(turn)?.keys() ?? [])];
  }

  /** The turns that changed this notebook unsaved, newest first. */
  turnsOf(path: string): string[] {
    return [...this.byTurn]
      .filter(([, notebooks]) => notebooks.has(path))
      .sort(([, a], [, b]) => b.get(path)!.at - a.get(path)!.at)
      .map(([turn]) => turn);
  }

  /** Follows a rename or move (of the notebook or a folder above it), as local history does. */
  applyMove(from: string, to: string): void {
    const moved = new Set<string>();
    for (const notebooks of this.byTurn.values())
      for (const path of notebooks.keys()) if (path === from || path.startsWith(`${from}/`)) moved.add(path);
    for (const notebooks of this.byTurn.values()) rekeyAfterMove(notebooks, from, to);
    for (const path of moved) {
      this.persist(path);
      this.persist(`${to}${path.slice(from.length)}`);
    }
  }

  /**
   * Writes the notebook's record beside its backup (all its turns; none left: removed), in order per path. Not before
   * an earlier run's record is loaded: written sooner, it would replace that record's turns with this run's alone.
   */
  private persist(path: string): void {
    const beside = this.beside;
    if (!beside) return;
    const write = this.loading
      .then(() => {
        const turns: Array<{ turn: string; edit: UnsavedAgentEdit }> = [];
        for (const [turn, notebooks] of this.byTurn) {
          const edit = notebooks.get(path);
          if (edit) turns.push({ turn, edit });
        }
        return beside.keepBeside(path, turns.length > 0 ? formatAgentEdits(path, turns) : null);
      })
      .catch(
        log.caught(
          "an Agent turn's unsaved changes could not be kept beside the backup: this run still lists them",
          undefined,
          'warn',
        ),
      );
    this.writing.add(write);
    void write.finally(() => this.writing.delete(write));
  }

  /** Resolves once every write started is done (a graceful shutdown). */
  async flush(): Promise<void> {
    await Promise.all([...this.writing]);
  }

  dispose(): void {
    this.changed.dispose();
  }
}

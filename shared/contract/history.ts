import { z } from 'zod';
import { request } from './define';
import { NotebookDiffCell, NotebookDiffResult } from './notebook-diff';
import { RelPath, WriteResult } from './workspace';

/** Who replaced a version (or, for `external`, who wrote the version another program left). */
export const HistoryOrigin = z.enum(['operator', 'agent', 'mcp', 'external']);
export type HistoryOrigin = z.infer<typeof HistoryOrigin>;

/**
 * What happened to the version: replaced by a write, deleted, a restore (or undo), written by another program,
 * or `create`: the file did not exist (an empty version, kept for an Agent turn or MCP batch so undo removes it).
 */
export const HistoryReason = z.enum(['write', 'delete', 'restore', 'external', 'create']);
export type HistoryReason = z.infer<typeof HistoryReason>;

/** One version of a file kept in local history. */
export const HistoryEntry = z.object({
  id: z.string(),
  /** The file's path when the version was recorded (history follows moves; this does not change). */
  path: RelPath,
  at: z.number(),
  origin: HistoryOrigin,
  reason: HistoryReason,
  size: z.number(),
  hash: z.string(),
  /** The hash of what the recorded write put in its place; absent for a delete (and another program's version). */
  nextHash: z.string().optional(),
  agentSession: z.string().optional(),
  turn: z.string().optional(),
  mcpClient: z.string().optional(),
  batch: z.string().optional(),
  /** A folder or a symbolic link (whose content is its target's text); a file when absent. */
  kind: z.enum(['file', 'dir', 'symlink']).optional(),
  /** The file's permission bits at the time. */
  mode: z.number().int().optional(),
  /**
   * Set when the version's content was not kept (over the size limit): the entry only says the turn changed the
   * file, so its list can say undo cannot put it back.
   */
  contentNotKept: z.boolean().optional(),
});
export type HistoryEntry = z.infer<typeof HistoryEntry>;

export const HistoryVersion = z.object({
  entry: HistoryEntry,
  /** Null for a binary version (listed, never shown or restored as text). */
  text: z.string().nullable(),
});
export type HistoryVersion = z.infer<typeof HistoryVersion>;

/** A dirty buffer kept for hot exit: the text the operator typed and the disk hash it was based on. */
export const Backup = z.object({
  path: RelPath,
  text: z.string(),
  /** The file's hash when the buffer was last in step with the disk; null when the file did not exist. */
  baseHash: z.string().nullable(),
  at: z.number(),
  /** Names this text, so the next backup can be sent as an edit of it (`backup.patch`). */
  version: z.string().optional(),
});
export type Backup = z.infer<typeof Backup>;

/**
 * A backup sent as one edit of a text main already has: the previous backup (by its version) or the file on disk
 * (by its hash). Typing in a big file then sends a few bytes, not the whole buffer, so no frame stalls the page.
 */
export const BackupPatch = z.object({
  path: RelPath,
  baseHash: z.string().nullable(),
  /** The version the patched text gets. */
  version: z.string(),
  against: z.union([z.object({ version: z.string() }), z.object({ diskHash: z.string() })]),
  /** The length of the text patched, as the window had it (a cheap check that both sides patch the same text). */
  againstLength: z.number().int().nonnegative(),
  /** The edit: `text` replaces [start, end) of the text patched. */
  start: z.number().int().nonnegative(),
  end: z.number().int().nonnegative(),
  text: z.string(),
});
export type BackupPatch = z.infer<typeof BackupPatch>;

/** A backup as listed: `missing` when its file is gone from disk (a "Recovered files" entry, kept until discarded). */
export const BackupListing = Backup.extend({ missing: z.boolean() });
export type BackupListing = z.infer<typeof BackupListing>;

/** One file an Agent turn or MCP batch touched, as its checkpoint lists it. */
export const TurnFile = z.object({
  path: RelPath,
  change: z.enum(['created', 'changed', 'deleted']),
  /** A folder or a symbolic link; a file when absent. */
  kind: z.enum(['dir', 'symlink']).optional(),
  /** Said plainly when undo cannot put this one back (its previous content was too large to keep). */
  cannotUndo: z.string().optional(),
});
export type TurnFile = z.infer<typeof TurnFile>;

/** A file changed after the turn by the operator or another program: undo leaves it until told. */
export const TurnConflict = z.object({
  path: RelPath,
  /** The file now; null when it is gone. */
  currentText: z.string().nullable(),
  /** What undo would put back; null when undo would remove the file (the turn created it). */
  beforeText: z.string().nullable(),
});
export type TurnConflict = z.infer<typeof TurnConflict>;

export const UndoTurnResult = z.object({
  /** The undo's own checkpoint: undoing it redoes the turn. */
  undo: z.string(),
  /** Files put back as they were before the turn (created ones moved to the trash). */
  restored: z.array(RelPath),
  /** Files changed since the turn: not touched. "Restore anyway" undoes them with `paths` and `force`. */
  conflicts: z.array(TurnConflict),
  /** What undo could not put back, and why (a version too large to keep; a folder the turn made that now holds files). */
  notUndone: z.array(z.object({ path: RelPath, why: z.string() })).optional(),
});
export type UndoTurnResult = z.infer<typeof UndoTurnResult>;

/** What an Agent turn did to one notebook cell. */
export const TurnCellAction = z.enum(['added', 'edited', 'moved', 'deleted', 'ran']);
export type TurnCellAction = z.infer<typeof TurnCellAction>;

/** One cell an Agent turn changed, as the change stands now (a change undone since, or reverted by hand, is gone). */
export const TurnCell = z.object({
  /** The change's id in the review (the notebook before the turn ↔ now): what Keep and Undo send. */
  changeId: z.string(),
  /** The cell's id now (before the turn, for a deleted cell); null for a cell without one (nbformat 4.4). */
  cellId: z.string().nullable(),
  /** Its position, 1-based: in the notebook now, or before the turn for a deleted cell. */
  number: z.number().int().positive(),
  actions: z.array(TurnCellAction),
  /**
   * Set when Undo would lose a later edit of the operator's (they changed lines the agent changed): why. Undo
   * leaves such a cell as it is; the review shows both sides to settle it by hand.
   */
  undoRefused: z.string().optional(),
});
export type TurnCell = z.infer<typeof TurnCell>;

/** The operator's decision on one of a turn's notebook changes. */
export const TurnCellDecision = z.enum(['kept', 'undone']);
export type TurnCellDecision = z.infer<typeof TurnCellDecision>;

/** One notebook an Agent turn changed, cell by cell. */
export const TurnNotebook = z.object({
  path: RelPath,
  cells: z.array(TurnCell),
  /** Whether the turn's change of the notebook's own metadata still stands (change id `notebook`). */
  notebookChanged: z.boolean(),
  /** What the operator decided so far, by change id; a change without a decision is still to review. */
  decided: z.record(z.string(), TurnCellDecision),
  /**
   * Set when another program replaced the notebook after the turn and what the turn left is not in local history:
   * its cells cannot be compared with the turn's (no cells listed; "Undo this turn" offers the whole file).
   */
  changedElsewhere: z.boolean().optional(),
  /**
   * Set when the turn changed the notebook while it was open with the operator's unsaved edits: `open` while the
   * turn's changes are only in the open notebook (Keep / Undo work there), `discarded` once the operator discarded
   * them unsaved (no cells listed: nothing of the turn is left in the notebook). Absent once saved.
   */
  unsaved: z.enum(['open', 'discarded']).optional(),
});
export type TurnNotebook = z.infer<typeof TurnNotebook>;

export const historyRequests = {
  /** The notebooks an Agent turn changed, each with the cells it added, edited, deleted and ran (as they stand now). */
  'history.turnNotebooks': request(z.object({ turn: z.string() }), z.object({ notebooks: z.array(TurnNotebook) })),
  /**
   * The Agent turns whose changes to one notebook are still to review (its newest turns, newest first), each with
   * the cells as `history.turnNotebooks` lists them: what the notebook marks, with or without the Agent panel.
   */
  'history.notebookTurnsToReview': request(
    z.object({ path: RelPath }),
    z.object({ turns: z.array(z.object({ turn: z.string(), notebook: TurnNotebook })) }),
  ),
  /**
   * The review of one notebook's changes by a turn: the notebook before the turn ↔ now (the open notebook's
   * unsaved edits included), where only the turn's changes are changes. E_NOT_FOUND when the turn did not change it.
   */
  'history.turnNotebookReview': request(
    z.object({ turn: z.string(), path: RelPath }),
    z.object({
      notebook: TurnNotebook,
      review: NotebookDiffResult,
      /**
       * By change id, for a cell the operator edited or ran since the turn: what Undo puts in its place (the
       * agent's lines reversed, the operator's kept; outputs before the turn only if not run since) instead of
       * the review's cell before the turn.
       */
      undoAs: z.record(z.string(), NotebookDiffCell),
    }),
  ),
  /**
   * Keeps or undoes some of a turn's changes to a notebook. `undone` with `write`: main writes the notebook with
   * those cells as before the turn (their old outputs with them), every other byte as it is, through the workspace
   * (local history keeps what it replaced); refused (E_CHANGED_ON_DISK) while the open notebook has unsaved edits.
   * Without `write` the decision is only recorded (the window undid the cells in the open notebook itself).
   */
  'history.decideTurnCells': request(
    z.object({
      turn: z.string(),
      path: RelPath,
      changeIds: z.array(z.string()).min(1),
      decision: TurnCellDecision,
      write: z.boolean().optional(),
    }),
    TurnNotebook,
  ),
  /** What an Agent turn (its run id) or an MCP batch created, changed and deleted, from local history. */
  'history.turn': request(
    z.object({ turn: z.string() }),
    z.object({
      turn: z.string(),
      files: z.array(TurnFile),
      /** Set while the turn stands undone (kept in history, so it holds across reloads): what undo put back. */
      undone: z
        .object({ undo: z.string(), restored: z.array(RelPath) })
        .nullable()
        .optional(),
    }),
  ),
  /**
   * Undoes a turn: each file it touched goes back to its content before the turn, unless it changed since
   * (then it is listed, not written). `paths` limits the undo to those files; `force` writes them anyway.
   * `scripts/` steps the turn ran stay: they are the log of what ran.
   */
  'history.undoTurn': request(
    z.object({ turn: z.string(), paths: z.array(RelPath).optional(), force: z.boolean().optional() }),
    UndoTurnResult,
  ),
  /** Keeps (replaces) the backup of a dirty text buffer; the renderer sends it a moment after typing stops. */
  'backup.save': request(Backup.omit({ at: true }), z.object({ saved: z.boolean() })),
  /** A backup as an edit of the last one or of the disk; `saved: false` when main lacks that base (send it whole). */
  'backup.patch': request(BackupPatch, z.object({ saved: z.boolean() })),
  /** The buffer was saved, reverted or discarded: its backup goes. */
  'backup.discard': request(z.object({ path: RelPath }), z.object({ discarded: z.boolean() })),
  /**
   * Every backup of this workspace (restored once, when the window opens; those of files gone from disk are
   * listed as recovered files instead).
   */
  'backup.list': request(z.object({}), z.object({ backups: z.array(BackupListing) })),

  /** The window's dirty tabs, sent when they change: the Electron host asks about them on close (hot exit off). */
  'window.dirty': request(z.object({ paths: z.array(RelPath) }), z.object({ ok: z.boolean() })),
  /** The window saved every tab after "Save All" on close: the Electron host closes it now (the web host ignores it). */
  'window.close': request(z.object({}), z.object({ closing: z.boolean() })),

  /** The file's local history, newest first. */
  'history.list': request(z.object({ path: RelPath }), z.object({ path: RelPath, entries: z.array(HistoryEntry) })),
  'history.read': request(z.object({ path: RelPath, id: z.string() }), HistoryVersion),
  /**
   * Writes a version back. `expectedHash` is the file's hash when the diff was shown: like Save, the restore
   * is refused with E_CHANGED_ON_DISK if the file changed since. The content replaced is itself recorded.
   */
  'history.restore': request(
    z.object({ path: RelPath, id: z.string(), expectedHash: z.string().nullable() }),
    WriteResult,
  ),
  /**
   * "Restore this cell": cell `cellIndex` of a notebook's version put back into the notebook as it is now, the
   * other cells untouched, in the bytes Jupyter writes. With `buffer` (the notebook open as text) the result is
   * returned for the editor to apply and nothing is written; without, the file is read and written (a restore,
   * recorded in history first), E_CHANGED_ON_DISK if it changed meanwhile. E_BAD_REQUEST when that cell is
   * as it was; E_INVALID_NOTEBOOK when either side is not a notebook.
   */
  'history.restoreCell': request(
    z.object({
      path: RelPath,
      id: z.string(),
      cellIndex: z.number().int().min(0),
      buffer: z
        .string()
        .max(256 * 1024 * 1024)
        .optional(),
    }),
    z.object({ text: z.string(), written: WriteResult.nullable() }),
  ),
} as const;

export const historyEvents = {
  /** A file's local history gained or lost entries (the Timeline refreshes). */
  'history.changed': z.object({ path: RelPath }),
  /**
   * An Agent turn's unsaved changes to a notebook changed state with no write of the turn's (the notebook was saved,
   * reverted, or closed without saving): the turn's notebooks are asked again.
   */
  'history.turnNotebook': z.object({ turn: z.string(), path: RelPath }),
  /** "Save All" was chosen on closing the window: save every dirty tab, then send `window.close`. */
  'window.saveAll': z.object({}),
} as const;

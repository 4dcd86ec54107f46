import { useCallback, useEffect, useState } from 'react';
import type { TurnConflict, TurnFile } from '../../../shared/contract';
import { nameOf } from '../../../shared/paths';
import { errorText, useBridge } from '../base';
import { TurnNotebookCells, undoTurnInOpenNotebooks, useAgentReviewStore, useTurnNotebooks } from '../agent-review';
import { DiffView } from '../editor';

const CHANGE_SHOWN: Record<TurnFile['change'], string> = {
  created: 'created',
  changed: 'changed',
  deleted: 'deleted',
};

/** A folder or link is named as one; a plain file is just its path. */
const KIND_SHOWN: Record<NonNullable<TurnFile['kind']>, string> = { dir: 'folder', symlink: 'link' };

interface Undone {
  /** The undo's own checkpoint: undoing it redoes the turn. */
  undo: string;
  restored: string[];
  conflicts: TurnConflict[];
  notUndone?: { path: string; why: string }[];
}

/**
 * Under an Agent turn in the transcript: the files it created, changed or deleted (from local history), what it
 * ran, and "Undo this turn". Files changed since the turn are listed with a diff and Restore anyway / Keep current.
 */
export function TurnCheckpoint({
  turn,
  running,
  ran = [],
}: {
  turn: string;
  running: boolean;
  /**
   * What the turn ran (from its transcript): listed, never undone; the steps are the log of what ran. `direct`: the
   * run wrote to disk directly (no overlay here), so undo cannot restore what it wrote.
   */
  ran?: { target: string; direct: boolean }[];
}) {
  const bridge = useBridge();
  const [files, setFiles] = useState<TurnFile[]>([]);
  const [undone, setUndone] = useState<Undone | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const { notebooks, reload: reloadNotebooks } = useTurnNotebooks(turn, running);
  const reviews = useAgentReviewStore();

  useEffect(() => {
    if (running) return;
    let live = true;
    void bridge.request('history.turn', { turn }).then(
      (answer) => {
        if (!live) return;
        setFiles(answer.files);
        // An undo made before a reload still shows as undone (the files changed since were answered then).
        if (answer.undone) setUndone((shown) => shown ?? { ...answer.undone!, conflicts: [] });
      },
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [bridge, turn, running]);

  const act = useCallback(async (work: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await work();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  }, []);

  const undo = () =>
    act(async () => {
      // Notebooks the turn changed unsaved are undone in the open notebook (its own undo), the rest by main.
      for (const done of await undoTurnInOpenNotebooks(bridge, turn, notebooks)) reviews.update(turn, done);
      const result = await bridge.request('history.undoTurn', { turn });
      setUndone(result);
      reloadNotebooks();
    });
  const redo = () =>
    act(async () => {
      if (!undone) return;
      await bridge.request('history.undoTurn', { turn: undone.undo });
      setUndone(null);
      reloadNotebooks();
    });
  const restoreAnyway = (path: string) =>
    act(async () => {
      const result = await bridge.request('history.undoTurn', { turn, paths: [path], force: true });
      setUndone(
        (u) =>
          u && {
            ...u,
            restored: [...u.restored, ...result.restored],
            conflicts: u.conflicts.filter((c) => c.path !== path),
          },
      );
    });
  const keepCurrent = (path: string) =>
    setUndone((u) => u && { ...u, conflicts: u.conflicts.filter((c) => c.path !== path) });

  if (running || (files.length === 0 && ran.length === 0)) return null;
  return (
    <section className="turn-checkpoint" aria-label="Changes of this turn">
      <ul className="turn-files">
        {files.map((file) => (
          <li key={file.path} data-change={file.change}>
            <span className="turn-change">
              {CHANGE_SHOWN[file.change]}
              {file.kind ? ` ${KIND_SHOWN[file.kind]}` : ''}
            </span>{' '}
            <span title={file.path}>{file.path}</span>
            {file.cannotUndo && <span className="turn-direct">{capitalized(file.cannotUndo)}.</span>}
            {notebooks
              .filter((nb) => nb.path === file.path)
              .map((nb) => (
                <TurnNotebookCells key={nb.path} turn={turn} notebook={nb} />
              ))}
          </li>
        ))}
        {ranOnce(ran).map(({ target, direct }) => (
          <li key={`ran-${target}`} data-change="ran">
            <span className="turn-change">ran</span> <span title={target}>{target}</span>
            {direct && (
              <span className="turn-direct">It wrote to disk directly: undo cannot restore what it wrote.</span>
            )}
          </li>
        ))}
      </ul>
      {undone ? (
        <div className="turn-undone" role="status">
          Undone: {undone.restored.length} of {files.length} file{files.length === 1 ? '' : 's'} put back as before the
          turn. Steps in <code>scripts/</code> stay: they record what ran.{' '}
          <button type="button" className="btn btn-small" disabled={busy} onClick={() => void redo()}>
            Redo
          </button>
        </div>
      ) : (
        files.length > 0 && (
          <button type="button" className="btn btn-small" disabled={busy} onClick={() => void undo()}>
            Undo this turn
          </button>
        )
      )}
      {undone?.notUndone?.map(({ path, why }) => (
        <div key={`not-${path}`} className="turn-direct" role="note">
          {nameOf(path)}: {why}.
        </div>
      ))}
      {undone?.conflicts.map((conflict) => (
        <div
          key={conflict.path}
          className="turn-conflict"
          role="group"
          aria-label={`Changed since the turn: ${conflict.path}`}
        >
          <div className="turn-conflict-text">
            <strong>{nameOf(conflict.path)}</strong> changed after the turn; undo left it as it is.
          </div>
          <div className="turn-conflict-diff">
            <DiffView
              path={conflict.path}
              original={conflict.currentText ?? ''}
              modified={conflict.beforeText ?? ''}
              sideBySide={false}
              originalLabel={`${nameOf(conflict.path)} now`}
              modifiedLabel={`${nameOf(conflict.path)} before the turn`}
            />
          </div>
          <div className="turn-conflict-actions">
            <button
              type="button"
              className="btn btn-small"
              disabled={busy}
              onClick={() => void restoreAnyway(conflict.path)}
            >
              Restore anyway
            </button>
            <button type="button" className="btn btn-small" disabled={busy} onClick={() => keepCurrent(conflict.path)}>
              Keep current
            </button>
          </div>
        </div>
      ))}
      {error && (
        <div className="turn-error" role="alert">
          {error}
        </div>
      )}
    </section>
  );
}

/** Each target once; a target run with direct writes any time says so. */
function ranOnce(ran: { target: string; direct: boolean }[]): { target: string; direct: boolean }[] {
  const byTarget = new Map<string, boolean>();
  for (const { target, direct } of ran) byTarget.set(target, (byTarget.get(target) ?? false) || direct);
  return [...byTarget].map(([target, direct]) => ({ target, direct }));
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

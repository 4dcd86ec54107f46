import { useEffect, useMemo, useRef } from 'react';
import type { NotebookMergeResult } from '../../../shared/contract';
import type {
  CellConflictItem,
  MergeCellText,
  MergeResolution,
  NotebookKeyConflict,
} from '../../../shared/notebook-diff';
import { nameOf } from '../../../shared/paths';
import { useBridge, useStore } from '../base';
import { describeConflict } from './describe';
import { NotebookMergeStore } from './merge-store';
import './notebook-merge.css';

const ORIGIN_LABEL = { unchanged: '', ours: 'from ours', theirs: 'from theirs', merged: 'merged from both' } as const;

/**
 * A notebook git left in conflict, resolved cell by cell: merged cells as they will be, each conflict with ours'
 * and theirs' cells and a choice of ours, theirs or both. Save writes the notebook; Save and Stage also runs
 * `git add`. `onSaved` reopens the notebook as usual.
 */
export function NotebookMergeView({
  path,
  onSaved,
  onOpenAsText,
}: {
  path: string;
  onSaved: () => void;
  onOpenAsText: () => void;
}) {
  const bridge = useBridge();
  // The latest callback, so a new one each render does not make a new store (and read git again).
  const saved = useRef(onSaved);
  saved.current = onSaved;
  const store = useMemo(() => new NotebookMergeStore(bridge, path, () => saved.current()), [bridge, path]);
  useEffect(() => {
    void store.load();
    return () => store.dispose();
  }, [store]);
  const state = useStore(store, (s) => s);
  const name = nameOf(path);
  const { resolved, total } = store.progress();
  const busy = state.status !== 'ready';

  return (
    <section className="nbm" aria-label={`Resolve merge conflicts in ${name}`}>
      <header className="nbm-header">
        <div className="nbm-title">
          <strong>{name} has merge conflicts</strong>
          <span className="nbm-progress" role="status">
            {!state.merge
              ? ''
              : total === 0
                ? 'Every change merged by itself: save to resolve'
                : `${resolved} of ${total} conflicts resolved`}
          </span>
        </div>
        <div className="nbm-actions">
          <button type="button" className="btn btn-small" onClick={onOpenAsText}>
            Open as text
          </button>
          <button
            type="button"
            className="btn btn-small"
            disabled={busy || resolved < total}
            onClick={() => void store.save(false)}
          >
            Save
          </button>
          <button
            type="button"
            className="btn btn-small btn-primary"
            disabled={busy || resolved < total}
            onClick={() => void store.save(true)}
          >
            Save and Stage
          </button>
        </div>
      </header>
      {state.error && (
        <div role="alert" className="nbm-error">
          {state.error}
          {state.status === 'error' && (
            <button type="button" className="btn btn-small" onClick={() => void store.load()}>
              Try again
            </button>
          )}
        </div>
      )}
      {state.status === 'loading' && <div className="notice">Reading git’s versions of {name}…</div>}
      {state.merge && <MergeBody merge={state.merge} store={store} resolutions={state.resolutions} />}
    </section>
  );
}

function MergeBody({
  merge,
  store,
  resolutions,
}: {
  merge: NotebookMergeResult;
  store: NotebookMergeStore;
  resolutions: Record<string, MergeResolution>;
}) {
  let position = 0;
  return (
    <div className="nbm-body">
      {merge.addedOnBothSides && (
        <p className="nbm-note">Both branches added this notebook: what they have in common stands for the base.</p>
      )}
      <ol className="nbm-cells">
        {merge.merge.items.map((item) => {
          position += 1;
          if (item.kind === 'cell')
            return (
              <li key={`c${position}`} className="nbm-cell" data-origin={item.origin}>
                <div className="nbm-cell-label">
                  Cell {position} <span className="nbm-dim">{item.cellType}</span>{' '}
                  {ORIGIN_LABEL[item.origin] && <span className="nbm-origin">{ORIGIN_LABEL[item.origin]}</span>}
                </div>
                <pre className="nbm-source">{item.source}</pre>
              </li>
            );
          return (
            <li key={item.conflictId} className="nbm-cell">
              <CellConflict
                conflict={item}
                position={position}
                chosen={resolutions[item.conflictId]}
                onChoose={(choice) => store.resolve(item.conflictId, choice)}
              />
            </li>
          );
        })}
      </ol>
      {merge.merge.notebookConflicts.length > 0 && (
        <div className="nbm-notebook">
          {merge.merge.notebookConflicts.map((conflict) => (
            <KeyConflict
              key={conflict.conflictId}
              conflict={conflict}
              chosen={resolutions[conflict.conflictId]}
              onChoose={(choice) => store.resolve(conflict.conflictId, choice)}
            />
          ))}
        </div>
      )}
    </div>
  );
}

function Choices({
  chosen,
  onChoose,
  both,
}: {
  chosen: MergeResolution | undefined;
  onChoose: (choice: MergeResolution) => void;
  both: boolean;
}) {
  const choices: [MergeResolution, string][] = [
    ['ours', 'Use ours'],
    ['theirs', 'Use theirs'],
  ];
  if (both) choices.push(['both', 'Use both']);
  return (
    <div className="nbm-choices">
      {choices.map(([choice, label]) => (
        <button
          key={choice}
          type="button"
          className="btn btn-small"
          aria-pressed={chosen === choice}
          onClick={() => onChoose(choice)}
        >
          {label}
        </button>
      ))}
    </div>
  );
}

function Side({ title, cells, empty }: { title: string; cells: MergeCellText[]; empty: string }) {
  return (
    <div className="nbm-side">
      <div className="nbm-side-title">{title}</div>
      {cells.length === 0 ? (
        <div className="nbm-dim">{empty}</div>
      ) : (
        cells.map((cell) => (
          <pre key={cell.index} className="nbm-source">
            {cell.source}
          </pre>
        ))
      )}
    </div>
  );
}

function CellConflict({
  conflict,
  position,
  chosen,
  onChoose,
}: {
  conflict: CellConflictItem;
  position: number;
  chosen: MergeResolution | undefined;
  onChoose: (choice: MergeResolution) => void;
}) {
  const name = describeConflict(conflict, position);
  return (
    <div role="group" aria-label={name} className="nbm-conflict" data-resolved={chosen !== undefined}>
      <div className="nbm-cell-label">
        {name}
        {conflict.metadataKeys.length > 0 && (
          <span className="nbm-dim"> (metadata: {conflict.metadataKeys.join(', ')})</span>
        )}
      </div>
      <div className="nbm-sides">
        <Side title="Ours (current branch)" cells={conflict.ours} empty="Deleted" />
        <Side title="Theirs (incoming)" cells={conflict.theirs} empty="Deleted" />
      </div>
      {conflict.base && (
        <details className="nbm-base">
          <summary>Base</summary>
          <pre className="nbm-source">{conflict.base.source}</pre>
        </details>
      )}
      <Choices chosen={chosen} onChoose={onChoose} both />
    </div>
  );
}

function KeyConflict({
  conflict,
  chosen,
  onChoose,
}: {
  conflict: NotebookKeyConflict;
  chosen: MergeResolution | undefined;
  onChoose: (choice: MergeResolution) => void;
}) {
  const shown = (value: unknown) => (value === undefined ? 'Not set' : JSON.stringify(value, null, 1));
  const name = `Notebook ${conflict.scope === 'metadata' ? 'metadata' : 'field'} "${conflict.key}" set differently on both sides`;
  return (
    <div role="group" aria-label={name} className="nbm-conflict" data-resolved={chosen !== undefined}>
      <div className="nbm-cell-label">{name}</div>
      <div className="nbm-sides">
        <div className="nbm-side">
          <div className="nbm-side-title">Ours (current branch)</div>
          <pre className="nbm-source">{shown(conflict.ours)}</pre>
        </div>
        <div className="nbm-side">
          <div className="nbm-side-title">Theirs (incoming)</div>
          <pre className="nbm-source">{shown(conflict.theirs)}</pre>
        </div>
      </div>
      <Choices chosen={chosen} onChoose={onChoose} both={false} />
    </div>
  );
}

import { useEffect, useState, type ReactNode } from 'react';
import type { NotebookDiffResult, NotebookDiffSide } from '../../../shared/contract';
import type { CellDiff } from '../../../shared/notebook-diff';
import { singleChanges } from '../../../shared/fs-change';
import { errorText, useBridge } from '../base';
import { NotebookDiffView, type NotebookDiffDecisions } from './NotebookDiffView';

/** A `path` or `file` side follows its notebook's edits and its file, redrawn once they settle. */
const REFRESH_MS = 150;

export interface NotebookCompareProps {
  base: NotebookDiffSide;
  next: NotebookDiffSide;
  sideBySide: boolean;
  oldLabel: string;
  newLabel: string;
  decisions?: NotebookDiffDecisions;
  /** More buttons for one change; given the diff they belong to. */
  cellActions?: (cell: CellDiff, result: NotebookDiffResult) => ReactNode;
  /** What shows instead when either side is not a notebook Kiln can compare (the text diff, with the reason). */
  fallback: (reason: string) => ReactNode;
}

/** Asks main for the diff of two notebooks and shows it, asked again when a notebook it reads changes. */
export function NotebookCompare({ base, next, cellActions, fallback, ...view }: NotebookCompareProps) {
  const bridge = useBridge();
  const [answer, setAnswer] = useState<{ result: NotebookDiffResult } | { error: string } | null>(null);
  const key = JSON.stringify([base, next]);

  useEffect(() => {
    let current = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const ask = () =>
      bridge.request('notebook.diff', { base, next }).then(
        (result) => current && setAnswer({ result }),
        (err: unknown) => current && setAnswer({ error: errorText(err) }),
      );
    void ask();
    const paths = new Set(
      [base, next].flatMap((side) => ('path' in side ? [side.path] : 'file' in side ? [side.file] : [])),
    );
    const again = ({ path }: { path: string }) => {
      if (!paths.has(path)) return;
      clearTimeout(timer);
      timer = setTimeout(() => void ask(), REFRESH_MS);
    };
    const offs = [
      bridge.on('notebook.dirty', again),
      bridge.on('notebook.changed', again),
      // The disk changed again under unsaved edits.
      bridge.on('notebook.conflict', again),
      // A file not open as a notebook changed (a cell restored into it, another program).
      bridge.on('fs.change', (change) => {
        for (const single of singleChanges(change))
          if (single.type !== 'moved' && single.type !== 'createdFiles') again(single);
      }),
    ];
    return () => {
      current = false;
      clearTimeout(timer);
      for (const off of offs) off();
    };
    // `key` stands for both sides.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [bridge, key]);

  if (!answer) return <div className="nbd-loading">Comparing cells…</div>;
  if ('error' in answer) return <>{fallback(answer.error)}</>;
  const { result } = answer;
  return (
    <NotebookDiffView
      {...view}
      result={result}
      newLabel={result.unsaved.next ? `${view.newLabel} (unsaved)` : view.newLabel}
      cellActions={cellActions && ((cell) => cellActions(cell, result))}
    />
  );
}

export interface NotebookCompareOrTextProps extends Omit<NotebookCompareProps, 'fallback'> {
  /** The plain text diff of the two files, shown when either is not a notebook Kiln can compare. */
  textDiff: ReactNode;
  /** The class of the "Shown as text" note, as its panel styles notes. */
  noteClassName: string;
}

/** A notebook compared as cells, else as text under a note saying why (a version that is not valid JSON). */
export function NotebookCompareOrText({ textDiff, noteClassName, ...props }: NotebookCompareOrTextProps) {
  return (
    <NotebookCompare
      {...props}
      fallback={(reason) => (
        <>
          <div className={noteClassName} role="note">
            Shown as text: {reason}
          </div>
          {textDiff}
        </>
      )}
    />
  );
}

import { nameOf } from '../../../shared/paths';
import { useBridge, useStore } from '../base';
import { useState } from 'react';
import { DiffView, SideBySideToggle, useDiffSideBySide, useOpenFilesStore } from '../editor';
import { NotebookCompareOrText, restoreCellInto } from '../notebook-diff';
import { DiffIcon, XIcon } from '../ui';
import { describeEntry, entryTime } from './describe';
import { useTimelineStore } from './timeline-store';

/**
 * The centre's view of a Timeline version: a Monaco diff of the version ↔ the file now, with Restore.
 * EditorArea renders this slot above its document; while it shows, CSS hides the document below.
 */
export function TimelineDiffSlot({ path }: { path: string | null | undefined }) {
  const store = useTimelineStore();
  const state = useStore(store);
  const sideBySide = useDiffSideBySide();
  const bridge = useBridge();
  const files = useOpenFilesStore();
  // Why a "Restore this cell" did not happen, for the version it was asked of.
  const [cellFailure, setCellFailure] = useState<{ id: string; message: string } | null>(null);
  const { selected, entries, error } = state;
  if (!path || state.path !== path || !selected) return null;
  const cellError = cellFailure?.id === selected.id ? cellFailure.message : null;
  const entry = entries.find((e) => e.id === selected.id);
  const name = nameOf(path);
  const textDiff = (
    <DiffView
      path={path}
      original={selected.text ?? ''}
      modified={selected.currentText ?? ''}
      sideBySide={sideBySide}
      originalLabel={`${name}, the version from the Timeline`}
      modifiedLabel={`${name} now`}
    />
  );
  // A notebook compares as cells: "now" is the open notebook with its unsaved edits, as the operator sees it.
  const asNotebook = path.toLowerCase().endsWith('.ipynb') && selected.text !== null;
  return (
    <section className="timeline-diff" aria-label={`Timeline version of ${name}`}>
      <div className="compare-header">
        <DiffIcon />
        <span>
          {name}: {entry ? `${describeEntry(entry)}, ${entryTime(entry.at)}` : 'version'} ↔ now
        </span>
        <span className="spacer" />
        {asNotebook && <SideBySideToggle />}
        <button
          type="button"
          className="btn btn-small btn-primary"
          disabled={selected.text === null}
          onClick={() => void store.restore()}
        >
          Restore
        </button>
        <button type="button" className="chat-icon-btn" aria-label="Close version" onClick={() => store.unselect()}>
          <XIcon />
        </button>
      </div>
      {(error ?? cellError) && (
        <div className="timeline-notice timeline-error" role="alert">
          {error ?? cellError}
        </div>
      )}
      {selected.text === null ? (
        <div className="notice">This version is binary; it is not shown or restored as text.</div>
      ) : asNotebook ? (
        <NotebookCompareOrText
          key={selected.id}
          base={{ text: selected.text ?? '' }}
          next={{ path }}
          sideBySide={sideBySide}
          oldLabel="the version from the Timeline"
          newLabel="now"
          cellActions={(cell, result) =>
            cell.oldIndex !== null && (
              <button
                type="button"
                className="btn btn-small"
                onClick={() => {
                  setCellFailure(null);
                  void restoreCellInto(path, result, cell, { bridge, files, versionId: selected.id }).then(
                    (message) => message && setCellFailure({ id: selected.id, message }),
                  );
                }}
              >
                Restore this cell
              </button>
            )
          }
          textDiff={textDiff}
          noteClassName="timeline-notice"
        />
      ) : (
        textDiff
      )}
    </section>
  );
}

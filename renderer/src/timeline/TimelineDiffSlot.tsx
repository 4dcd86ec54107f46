import { nameOf } from '../../../shared/paths';
import { useStore } from '../base';
import { DiffView } from '../editor';
import { DiffIcon, XIcon, usePrefs } from '../ui';
import { describeEntry, entryTime } from './describe';
import { useTimelineStore } from './timeline-store';

/**
 * The centre's view of a Timeline version: a Monaco diff of the version ↔ the file now, with Restore.
 * EditorArea renders this slot above its document; while it shows, CSS hides the document below.
 */
export function TimelineDiffSlot({ path }: { path: string | null | undefined }) {
  const store = useTimelineStore();
  const state = useStore(store);
  const { prefs } = usePrefs();
  const { selected, entries, error } = state;
  if (!path || state.path !== path || !selected) return null;
  const entry = entries.find((e) => e.id === selected.id);
  const name = nameOf(path);
  return (
    <section className="timeline-diff" aria-label={`Timeline version of ${name}`}>
      <div className="compare-header">
        <DiffIcon />
        <span>
          {name}: {entry ? `${describeEntry(entry)}, ${entryTime(entry.at)}` : 'version'} ↔ now
        </span>
        <span className="spacer" />
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
      {error && (
        <div className="timeline-notice timeline-error" role="alert">
          {error}
        </div>
      )}
      {selected.text === null ? (
        <div className="notice">This version is binary; it is not shown or restored as text.</div>
      ) : (
        <DiffView
          path={path}
          original={selected.text}
          modified={selected.currentText ?? ''}
          sideBySide={prefs?.diffSideBySide ?? true}
          originalLabel={`${name}, the version from the Timeline`}
          modifiedLabel={`${name} now`}
        />
      )}
    </section>
  );
}

import { isAbsolutePath, nameOf } from '../../../shared/paths';
import { useStore } from '../base';
import { useCommands } from '../commands';
import { useOpenFilesStore } from '../editor';
import { XIcon } from '../ui';
import { describeEntry, entryTime } from './describe';
import { useTimelineStore } from './timeline-store';
import './timeline.css';

/**
 * The Timeline region under the Explorer: the local history of one file, newest first. Selecting a version
 * opens the file and shows the version against it in the centre, where Restore is.
 */
export function TimelinePanel({ onOpen }: { onOpen: (path: string) => void }) {
  const store = useTimelineStore();
  const { path, entries, loading, selected, error, notice } = useStore(store);
  const openFiles = useOpenFilesStore();
  // The editor's way in (the tree's is its context menu): the active file's Timeline. A library file outside the
  // workspace has no local history: Kiln never writes it.
  const activeInWorkspace = () => {
    const active = openFiles.getState().active;
    return active && !isAbsolutePath(active) ? active : null;
  };
  useCommands([
    {
      id: 'timeline.openActive',
      title: 'Open Timeline',
      category: 'File',
      when: () => activeInWorkspace() !== null,
      run: () => {
        const active = activeInWorkspace();
        if (active) void store.show(active);
      },
    },
  ]);
  if (!path) return null;
  return (
    <section className="timeline" aria-label="Timeline">
      <div className="timeline-header">
        <span className="timeline-title">Timeline</span>
        <span className="timeline-file" title={path}>
          {nameOf(path)}
        </span>
        <span className="spacer" />
        <button type="button" className="chat-icon-btn" aria-label="Close Timeline" onClick={() => store.close()}>
          <XIcon />
        </button>
      </div>
      {notice && (
        <div className="timeline-notice" role="status">
          {notice}
        </div>
      )}
      {error && !selected && (
        <div className="timeline-notice timeline-error" role="alert">
          {error}
        </div>
      )}
      {entries.length === 0 ? (
        <div className="timeline-empty">{loading ? 'Loading…' : 'No local history for this file yet.'}</div>
      ) : (
        <ul className="timeline-list" aria-label={`Versions of ${nameOf(path)}`}>
          {entries.map((entry) => (
            <li key={entry.id}>
              <button
                type="button"
                className={`timeline-entry${selected?.id === entry.id ? ' selected' : ''}`}
                aria-current={selected?.id === entry.id ? 'true' : undefined}
                data-origin={entry.origin}
                onClick={() => {
                  onOpen(path);
                  void store.select(entry.id);
                }}
              >
                <span className="timeline-what">{describeEntry(entry)}</span>
                <span className="timeline-when">{entryTime(entry.at)}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

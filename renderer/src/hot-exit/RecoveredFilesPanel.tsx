import { nameOf } from '../../../shared/paths';
import { useStore } from '../base';
import { useOpenFilesStore } from '../editor';
import { XIcon } from '../ui';
import { useRecoveredFiles } from './recovered-files';
import './recovered-files.css';

/**
 * "Recovered files", under the Explorer: unsaved text kept for files deleted since. Open brings one back as a
 * dirty tab marked deleted (Save As keeps it); Discard drops its backup for good.
 */
export function RecoveredFilesPanel() {
  const store = useRecoveredFiles();
  const files = useOpenFilesStore();
  const { files: recovered, hidden, error } = useStore(store);
  if (hidden || recovered.length === 0) return null;
  const open = (path: string) => {
    const backup = store.take(path);
    if (!backup) return;
    // A notebook is reopened by main from its backup (dirty, marked deleted); text is put back in a tab here.
    if (backup.path.toLowerCase().endsWith('.ipynb')) void files.open(backup.path);
    else void files.restoreUnsaved(backup.path, backup.text, backup.baseHash);
  };
  return (
    <section className="recovered-files" aria-label="Recovered files">
      <div className="recovered-header">
        <span className="recovered-title">Recovered files</span>
        <span className="spacer" />
        <button type="button" className="chat-icon-btn" aria-label="Close Recovered files" onClick={() => store.hide()}>
          <XIcon />
        </button>
      </div>
      <p className="recovered-note">Unsaved changes to files that were deleted since.</p>
      {error && (
        <div className="recovered-note recovered-error" role="alert">
          {error}
        </div>
      )}
      <ul className="recovered-list" aria-label="Unsaved changes of deleted files">
        {recovered.map((file) => (
          <li key={file.path} className="recovered-item">
            <span className="recovered-name" title={`${file.path}, kept ${new Date(file.at).toLocaleString()}`}>
              {nameOf(file.path)}
            </span>
            <button
              type="button"
              className="btn btn-small"
              aria-label={`Open ${file.path}`}
              onClick={() => open(file.path)}
            >
              Open
            </button>
            <button
              type="button"
              className="btn btn-small"
              aria-label={`Discard ${file.path}`}
              onClick={() => void store.discard(file.path)}
            >
              Discard
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}

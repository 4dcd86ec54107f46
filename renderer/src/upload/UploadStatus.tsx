import './upload.css';
import { useStore } from '../base';
import { nameOf } from '../../../shared/paths';
import { progressText } from './transfer-text';
import { useUploads } from './upload-store';

/** The status bar's item while files come in: files and bytes, the file being written, and Cancel. */
export function UploadStatus() {
  const uploads = useUploads();
  const job = useStore(uploads, (s) => s.job);
  if (!job) return null;
  const text = progressText(job);
  const fraction = job.bytesTotal
    ? job.bytesDone / job.bytesTotal
    : job.filesTotal
      ? job.filesDone / job.filesTotal
      : 0;
  return (
    <span className="status-item upload-status" role="status" aria-label={`Uploading: ${text}`}>
      <span className="upload-status-text" title={job.current ?? undefined}>
        Uploading {job.current ? `"${nameOf(job.current)}" · ` : ''}
        {text}
      </span>
      <progress className="upload-status-bar" max={1} value={fraction} aria-hidden />
      <button type="button" className="status-button" onClick={() => uploads.cancel()}>
        Cancel
      </button>
    </span>
  );
}

import { formatBytes } from '../ui';
import { CodeEditor } from './CodeEditor';
import { useOpenFile } from './open-files';

/** The default document view: a text file in Monaco, or a notice for what Monaco shouldn't show. */
export function CodeDocument({ path }: { path: string }) {
  const file = useOpenFile(path);
  if (!file || file.status === 'loading') return <div className="notice">Loading…</div>;
  if (file.status === 'error')
    return (
      <div role="alert" className="notice notice-error">
        Could not open {file.name}: {file.error}
      </div>
    );
  if (file.binary) {
    return (
      <div className="notice binary-notice" role="note">
        <strong>{file.name}</strong> is a binary file ({formatBytes(file.size)}) and is not shown in the editor.
      </div>
    );
  }
  return (
    <div className="code-document">
      {(file.large || file.truncated) && (
        <div className="info-bar" role="note">
          {file.truncated
            ? `${file.name} is ${formatBytes(file.size)}; only the first part is shown, read-only.`
            : `${file.name} is a large file (${formatBytes(file.size)}): minimap, folding and highlighting are off to keep it fast.`}
        </div>
      )}
      <CodeEditor path={path} />
    </div>
  );
}

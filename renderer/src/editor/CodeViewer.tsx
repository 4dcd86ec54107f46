import Editor from '@monaco-editor/react';
import { useEffect, useState } from 'react';
import type { FileContent } from '../../../shared/contract';
import { useBridge } from '../app/bridge-context';
import { useColorScheme } from '../app/use-color-scheme';
import { languageForPath } from './monaco-setup';

/** First slice of the editor: the open file, read-only, in bundled Monaco. */
export function CodeViewer({ path }: { path: string }) {
  const bridge = useBridge();
  const scheme = useColorScheme();
  const [file, setFile] = useState<FileContent | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    setFile(null);
    setError(null);
    bridge.request('workspace.read', { path }).then(
      (content) => live && setFile(content),
      (err: Error) => live && setError(err.message),
    );
    return () => {
      live = false;
    };
  }, [bridge, path]);

  if (error) return <div role="alert" className="notice">{error}</div>;
  if (!file) return <div className="notice">Loading…</div>;
  if (file.binary) return <div className="notice">{path} is a binary file and is not shown.</div>;
  return (
    <Editor
      path={path}
      value={file.text ?? ''}
      language={languageForPath(path)}
      theme={scheme === 'dark' ? 'vs-dark' : 'vs'}
      options={{ readOnly: true, automaticLayout: true }}
    />
  );
}

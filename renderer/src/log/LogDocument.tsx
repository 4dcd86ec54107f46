import { useCallback, useEffect, useRef, useState } from 'react';
import { errorText, useBridge } from '../base';
import { monaco, useOpenFilesStore } from '../editor';
import type { DocumentViewProps } from '../editor';

/**
 * Kiln's own log, read-only: the newest part of `<dataDir>/logs/kiln.log`, scrolled to its end. Main serves it
 * (`log.read`), so it opens the same in the desktop app and the web host; Refresh reads it again.
 */
export function LogDocument({ path }: DocumentViewProps) {
  const bridge = useBridge();
  const store = useOpenFilesStore();
  const host = useRef<HTMLDivElement>(null);
  const editor = useRef<monaco.editor.IStandaloneCodeEditor | null>(null);
  const [log, setLog] = useState<{ text: string; truncated: boolean; size: number } | null>(null);
  const [error, setError] = useState<string | null>(null);

  // Never saved: the tab claims its document, so Save has nothing to write.
  useEffect(() => store.claim(path, { save: async () => undefined, closed: () => undefined }), [store, path]);

  const refresh = useCallback(() => {
    bridge.request('log.read', {}).then(
      (answer) => {
        setError(null);
        setLog(answer);
      },
      (err: unknown) => setError(errorText(err)),
    );
  }, [bridge]);
  useEffect(refresh, [refresh]);

  useEffect(() => {
    if (!host.current) return;
    const model = monaco.editor.createModel('', 'plaintext');
    const created = monaco.editor.create(host.current, {
      model,
      readOnly: true,
      domReadOnly: true,
      automaticLayout: true,
      fontSize: 12,
      wordWrap: 'on',
      minimap: { enabled: false },
      scrollBeyondLastLine: false,
    });
    editor.current = created;
    return () => {
      editor.current = null;
      created.dispose();
      model.dispose();
    };
  }, []);

  useEffect(() => {
    const shown = editor.current;
    if (!log || !shown) return;
    shown.getModel()?.setValue(log.text);
    // The newest records are what the operator came for.
    shown.revealLine(shown.getModel()?.getLineCount() ?? 1);
  }, [log]);

  return (
    <div className="code-document log-document">
      <div className="info-bar" role="note" aria-label="Kiln's log">
        Read-only: Kiln's log at {path}
        {log?.truncated ? ` (the newest part of ${Math.round(log.size / 1024)} KB)` : ''}
        {log && !log.text ? ' — nothing logged yet' : ''}.{' '}
        <button type="button" className="btn" onClick={refresh}>
          Refresh
        </button>
      </div>
      {error && (
        <div role="alert" className="notice notice-error">
          Could not read the log: {error}
        </div>
      )}
      <div className="code-editor" ref={host} />
    </div>
  );
}

import { useEffect, useRef, useState } from 'react';
import { errorText, useBridge } from '../base';
import { monaco, useOpenFilesStore, useReveals } from '../editor';
import type { DocumentViewProps } from '../editor';
import { libraryUri } from './library-files';

/**
 * A library file a definition led to, outside the workspace: shown read-only, as VS Code shows them, and never
 * saved (the tab claims its document, so Save has nothing to write).
 */
export function LibraryDocument({ path }: DocumentViewProps) {
  const bridge = useBridge();
  const reveals = useReveals.of(bridge);
  const store = useOpenFilesStore();
  const host = useRef<HTMLDivElement>(null);
  const [model, setModel] = useState<monaco.editor.ITextModel | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => store.claim(path, { save: async () => undefined, closed: () => undefined }), [store, path]);

  useEffect(() => {
    let live = true;
    let own: monaco.editor.ITextModel | null = null;
    // The tab's own model, read from the file: a peek's editor can type into the peeks' model of it.
    bridge.request('language.readLibraryFile', { path }).then(
      ({ text }) => {
        if (!live) return;
        own = monaco.editor.createModel(text, 'python', libraryUri(path).with({ query: 'tab' }));
        setModel(own);
      },
      (err: unknown) => live && setError(errorText(err)),
    );
    return () => {
      live = false;
      own?.dispose();
    };
  }, [bridge, path]);

  useEffect(() => {
    if (!model || !host.current) return;
    const editor = monaco.editor.create(host.current, {
      model,
      readOnly: true,
      domReadOnly: true,
      automaticLayout: true,
      fontSize: 13,
      scrollBeyondLastLine: false,
      fixedOverflowWidgets: true,
    });
    const reveal = () => reveals.revealPendingIn(path, editor);
    reveal();
    const stop = reveals.onRequest((requested) => requested === path && reveal());
    return () => {
      stop();
      editor.dispose();
    };
  }, [model, path, reveals]);

  if (error)
    return (
      <div role="alert" className="notice notice-error">
        Could not show {path}: {error}
      </div>
    );
  return (
    <div className="code-document library-document">
      <div className="info-bar" role="note" aria-label="Read-only library file">
        Read-only: {path} is outside the workspace (a library the language server found). It cannot be edited or saved
        here.
      </div>
      <div className="code-editor" ref={host} />
    </div>
  );
}

import { useEffect, useState } from 'react';
import { useBridge } from '../base';
import { useCommands } from '../commands';
import { monaco, useOpenFilesStore, useReveals, useTextModels } from '../editor';
import { useAsk, usePrefs, useToasts } from '../ui';
import { useLanguageClient } from './language-client';
import { PEEK_SCHEME, cellOfPeekUri } from './peek-models';
import { registerPythonProviders } from './providers';
import { LIBRARY_SCHEME } from './library-files';
import { reviewAndApply } from './review-edits';
import { WorkspaceSymbols } from './WorkspaceSymbols';
import { LanguageStatusLine } from './LanguageStatusItem';
import './language.css';

/**
 * Python in the editor: keeps the language server's documents in step, registers Monaco's providers, opens
 * definitions in other files in their tabs, and offers workspace symbols (Ctrl/Cmd+T). Mounted once by the shell.
 */
export function LanguageFeatures() {
  const bridge = useBridge();
  const textModels = useTextModels();
  const openFiles = useOpenFilesStore();
  const client = useLanguageClient();
  const ask = useAsk();
  const toasts = useToasts();
  const { prefs, setPref } = usePrefs();
  const [symbolsOpen, setSymbolsOpen] = useState(false);

  useEffect(() => client.follow(textModels), [client, textModels]);

  useEffect(() => {
    const providers = registerPythonProviders({
      bridge,
      textModels,
      reviewEdits: (preview, title) => reviewAndApply({ bridge, textModels, ask, toasts, preview, title }),
      flushChanges: () => client.flushChanges(),
    });
    // Go to Definition into another file (F12, Ctrl/Cmd+click, a peek's "open"): its tab opens at the place.
    const opener = monaco.editor.registerEditorOpener({
      openCodeEditor: (_source, resource, selectionOrPosition) => {
        // A notebook's cell in a peek of references: the notebook opens at that cell.
        const cellPlace = cellOfPeekUri(resource);
        // A library file's tab is keyed by its absolute path (see library-files.ts).
        const path = cellPlace
          ? cellPlace.path
          : resource.scheme === PEEK_SCHEME
            ? resource.path.slice(1)
            : resource.scheme === LIBRARY_SCHEME
              ? resource.path
              : textModels.pathOf(monaco.editor.getModel(resource));
        if (!path) return false;
        const start =
          selectionOrPosition && 'startLineNumber' in selectionOrPosition
            ? { line: selectionOrPosition.startLineNumber, column: selectionOrPosition.startColumn }
            : selectionOrPosition
              ? { line: selectionOrPosition.lineNumber, column: selectionOrPosition.column }
              : { line: 1, column: 1 };
        const end =
          selectionOrPosition &&
          'startLineNumber' in selectionOrPosition &&
          selectionOrPosition.endLineNumber === start.line
            ? selectionOrPosition.endColumn
            : start.column;
        useReveals.of(bridge).request(path, {
          line: start.line,
          start: start.column - 1,
          end: end - 1,
          ...(cellPlace ? { cellId: cellPlace.cell } : {}),
        });
        void openFiles.open(path);
        return true;
      },
    });
    return () => {
      opener.dispose();
      providers.dispose();
    };
  }, [bridge, textModels, openFiles, ask, toasts, client]);

  const on = prefs?.['python.languageServer'] !== 'off';
  useCommands([
    {
      id: 'language.workspaceSymbols',
      title: 'Go to Symbol in Workspace…',
      category: 'Go',
      keys: 'Mod+T',
      run: () => setSymbolsOpen(true),
    },
    {
      id: 'language.toggleServer',
      title: on ? 'Python Language Server: Turn Off' : 'Python Language Server: Turn On',
      category: 'Preferences',
      run: () => setPref('python.languageServer', on ? 'off' : 'on'),
    },
    {
      id: 'language.diagnosticsScope',
      title:
        prefs?.['python.diagnostics'] === 'workspace'
          ? 'Python Problems: Open Files Only'
          : 'Python Problems: Whole Workspace',
      category: 'Preferences',
      run: () =>
        setPref('python.diagnostics', prefs?.['python.diagnostics'] === 'workspace' ? 'openFiles' : 'workspace'),
    },
  ]);

  return (
    <>
      <LanguageStatusLine />
      {symbolsOpen && (
        <WorkspaceSymbols
          onClose={() => setSymbolsOpen(false)}
          onPick={(symbol) => {
            setSymbolsOpen(false);
            const { start, end } = symbol.location.range;
            useReveals.of(bridge).request(symbol.location.path, {
              line: start.line + 1,
              start: start.character,
              end: end.line === start.line ? end.character : start.character,
            });
            void openFiles.open(symbol.location.path);
          }}
        />
      )}
    </>
  );
}

import type { monaco } from './monaco-setup';

/** The code editor's Monaco options (the typing bench's bare editor takes the same); `large`: Monaco's cheap mode. */
export const EDITOR_OPTIONS: monaco.editor.IStandaloneEditorConstructionOptions = {
  automaticLayout: true,
  fontSize: 13,
  scrollBeyondLastLine: false,
  renderLineHighlight: 'line',
  smoothScrolling: true,
  fixedOverflowWidgets: true,
};

/** What a file's size and state change in them: large files get Monaco's cheap mode; truncated ones are read-only. */
export function fileOptions(file: {
  large: boolean;
  truncated: boolean;
  minimap: boolean;
}): monaco.editor.IEditorOptions & monaco.editor.IGlobalEditorOptions {
  return {
    minimap: { enabled: file.minimap && !file.large },
    readOnly: file.truncated,
    largeFileOptimizations: true,
    folding: !file.large,
    wordWrap: 'off',
    occurrencesHighlight: file.large ? 'off' : 'singleFile',
    renderValidationDecorations: file.large ? 'off' : 'editable',
    stopRenderingLineAfter: file.large ? 2000 : 10000,
  };
}

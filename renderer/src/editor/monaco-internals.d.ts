/** The one piece of Monaco's internals Kiln touches (see monaco-setup.ts); monaco-editor ships no types for it. */
declare module 'monaco-editor/esm/vs/editor/browser/editorExtensions.js' {
  export const EditorExtensionsRegistry: {
    /** The registered descriptions themselves (in a fresh array): each editor made reads them. */
    getEditorContributions(): { id: string; instantiation: number }[];
  };
}

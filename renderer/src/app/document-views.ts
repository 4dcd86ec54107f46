import { registerDocumentView } from '../editor';
import { LibraryDocument, isLibraryPath } from '../language';
import { NOTEBOOK_AS_TEXT, NotebookAsText, NotebookView, notebookTabDrop } from '../notebook';

// The centre's views besides the code editor, in the order they are tried.
registerDocumentView({
  id: 'notebook',
  matches: (p) => p.endsWith('.ipynb'),
  component: NotebookView,
  tabDrop: notebookTabDrop,
  ownsDocument: true,
});
registerDocumentView({ id: NOTEBOOK_AS_TEXT, matches: () => false, component: NotebookAsText });
// A library file a definition led to (outside the workspace): read-only, never saved.
registerDocumentView({
  id: 'library',
  matches: isLibraryPath,
  component: LibraryDocument,
  ownsDocument: true,
  readOnly: true,
});

import { registerDocumentView } from '../editor';
import { LibraryDocument, isLibraryPath } from '../language';
import { isLogPath, LogDocument } from '../log';
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
// Kiln's own log (Open Log): read-only, keyed by its absolute path, so tried before the library files' view.
registerDocumentView({ id: 'log', matches: isLogPath, component: LogDocument, ownsDocument: true, readOnly: true });
// A library file a definition led to (outside the workspace): read-only, never saved.
registerDocumentView({
  id: 'library',
  matches: isLibraryPath,
  component: LibraryDocument,
  ownsDocument: true,
  readOnly: true,
});

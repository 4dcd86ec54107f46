import { registerDocumentView } from '../editor';
import { NOTEBOOK_AS_TEXT, NotebookAsText, NotebookView } from '../notebook';

// The centre's views besides the code editor, in the order they are tried.
registerDocumentView({
  id: 'notebook',
  matches: (p) => p.endsWith('.ipynb'),
  component: NotebookView,
  ownsDocument: true,
});
registerDocumentView({ id: NOTEBOOK_AS_TEXT, matches: () => false, component: NotebookAsText });

import type { ComponentType } from 'react';
import { CodeDocument } from './CodeDocument';
import { NOTEBOOK_AS_TEXT, NotebookAsText, NotebookView } from '../notebook';
import type { OpenFile } from './open-files';

export interface DocumentViewProps {
  /** Workspace-relative path of the open file. */
  path: string;
}

export interface DocumentViewSpec {
  id: string;
  /** Whether the view is the default for a path; a view that matches none is shown only when a tab asks for it. */
  matches: (path: string) => boolean;
  component: ComponentType<DocumentViewProps>;
}

/**
 * Which view the centre shows for an open file: the one its tab asks for (`OpenFile.view`, e.g. a
 * notebook opened as text), else the first spec that matches. Plug a view in with one line above the fallback.
 */
const documentViews: DocumentViewSpec[] = [
  { id: 'notebook', matches: (p) => p.endsWith('.ipynb'), component: NotebookView },
  { id: NOTEBOOK_AS_TEXT, matches: () => false, component: NotebookAsText },
  { id: 'code', matches: () => true, component: CodeDocument },
];

export function viewFor(file: Pick<OpenFile, 'path' | 'view'>): DocumentViewSpec {
  return (
    documentViews.find((view) => view.id === file.view) ??
    documentViews.find((view) => view.matches(file.path)) ??
    documentViews[documentViews.length - 1]
  );
}

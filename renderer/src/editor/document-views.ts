import type { ComponentType } from 'react';
import { CodeDocument } from './CodeDocument';
import { NotebookView } from '../notebook';

export interface DocumentViewProps {
  /** Workspace-relative path of the open file. */
  path: string;
}

export interface DocumentViewSpec {
  id: string;
  matches: (path: string) => boolean;
  component: ComponentType<DocumentViewProps>;
}

/**
 * Which view the centre shows for an open file: the first spec that matches wins.
 * Plug a view in with one line above the fallback, e.g. the notebook:
 *   { id: 'notebook', matches: (p) => p.endsWith('.ipynb'), component: NotebookView },
 */
export const documentViews: DocumentViewSpec[] = [
  { id: 'notebook', matches: (p) => p.endsWith('.ipynb'), component: NotebookView },
  { id: 'code', matches: () => true, component: CodeDocument },
];

export function viewFor(path: string): DocumentViewSpec {
  return documentViews.find((view) => view.matches(path)) ?? documentViews[documentViews.length - 1];
}

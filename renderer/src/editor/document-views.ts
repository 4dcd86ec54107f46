import type { ComponentType } from 'react';
import type { KilnBridge } from '../../../shared/contract';
import { CodeDocument } from './CodeDocument';
import type { OpenFile } from './open-files';
import { registerOwningView } from './owning-views';

export interface DocumentViewProps {
  /** Workspace-relative path of the open file. */
  path: string;
}

export interface DocumentViewSpec {
  id: string;
  /** Whether the view is the default for a path; a view that matches none is shown only when a tab asks for it. */
  matches: (path: string) => boolean;
  component: ComponentType<DocumentViewProps>;
  /** What the view takes when dragged onto its tab (a notebook: cells, copied to its end). */
  tabDrop?: TabDrop;
  /** The view keeps its document itself (claims the tab): where it is the default, the tab's text is not read. */
  ownsDocument?: boolean;
  /** The tab is marked read-only (a library file outside the workspace). */
  readOnly?: boolean;
}

export interface TabDrop {
  accepts: (types: readonly string[]) => boolean;
  /** `bridge` is the window's where the drop landed. */
  drop: (path: string, data: DataTransfer, bridge: KilnBridge) => void;
}

// Views are plugged in from outside (the app shell registers the notebook's), so the editor never imports the
// folders that build on it. The code editor is the fallback, always last.
const documentViews: DocumentViewSpec[] = [{ id: 'code', matches: () => true, component: CodeDocument }];

export function registerDocumentView(view: DocumentViewSpec): void {
  documentViews.splice(documentViews.length - 1, 0, view);
  if (view.ownsDocument) registerOwningView(view.id, view.matches);
}

/**
 * Which view the centre shows for an open file: the one its tab asks for (`OpenFile.view`, e.g. a
 * notebook opened as text), else the first spec that matches.
 */
export function viewFor(file: Pick<OpenFile, 'path' | 'view'>): DocumentViewSpec {
  return (
    documentViews.find((view) => view.id === file.view) ??
    documentViews.find((view) => view.matches(file.path)) ??
    documentViews[documentViews.length - 1]
  );
}

import type { ComponentType } from 'react';

export interface EditorOverlayProps {
  /** The active file's workspace-relative path, if a file is open. */
  path: string | null | undefined;
}

/**
 * A view that can cover the active document (a proposal under review, a Timeline version): it renders nothing
 * until it has something to show for `path`, and while it shows, CSS hides the document below it.
 */
export interface EditorOverlaySpec {
  id: string;
  component: ComponentType<EditorOverlayProps>;
}

// Overlays are plugged in from outside (the app shell registers the Edit assistant's and the Timeline's), as
// document views are, so the editor never imports the features that show diffs in it.
const overlays: EditorOverlaySpec[] = [];

/** Adds an overlay above the document, after those registered before it; registering an id again does nothing. */
export function registerEditorOverlay(overlay: EditorOverlaySpec): void {
  if (!overlays.some((o) => o.id === overlay.id)) overlays.push(overlay);
}

export function editorOverlays(): readonly EditorOverlaySpec[] {
  return overlays;
}

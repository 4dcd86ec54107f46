import type { NotebookCell } from '../../../shared/contract';

type Metadata = NotebookCell['metadata'];

function jupyterOf(metadata: Metadata): Record<string, unknown> {
  const jupyter = metadata.jupyter;
  return typeof jupyter === 'object' && jupyter !== null && !Array.isArray(jupyter)
    ? (jupyter as Record<string, unknown>)
    : {};
}

/** Outputs hidden as Jupyter records it: `jupyter.outputs_hidden`, or classic Notebook's `collapsed`. */
export function outputsHidden(metadata: Metadata): boolean {
  return jupyterOf(metadata).outputs_hidden === true || metadata.collapsed === true;
}

/** Input hidden as Jupyter records it (`jupyter.source_hidden`). */
export function sourceHidden(metadata: Metadata): boolean {
  return jupyterOf(metadata).source_hidden === true;
}

/** Output area scrolls (`scrolled`), as JupyterLab's Shift+O toggles it. */
export function outputsScrolled(metadata: Metadata): boolean {
  return metadata.scrolled === true;
}

/** Sets or clears one `jupyter.*` flag the way JupyterLab writes it (an empty `jupyter` object is dropped). */
function withJupyterFlag(metadata: Metadata, key: string, on: boolean): Metadata {
  const { jupyter: _old, ...rest } = metadata;
  const jupyter = { ...jupyterOf(metadata) };
  if (on) jupyter[key] = true;
  else delete jupyter[key];
  return Object.keys(jupyter).length ? { ...rest, jupyter } : rest;
}

/** Metadata with outputs hidden or shown: JupyterLab writes `jupyter.outputs_hidden` and `collapsed` together. */
export function withOutputsHidden(metadata: Metadata, hidden: boolean): Metadata {
  const next = withJupyterFlag(metadata, 'outputs_hidden', hidden);
  if (hidden) return { ...next, collapsed: true };
  const { collapsed: _collapsed, ...rest } = next;
  return rest;
}

export function withSourceHidden(metadata: Metadata, hidden: boolean): Metadata {
  return withJupyterFlag(metadata, 'source_hidden', hidden);
}

export function withOutputsScrolled(metadata: Metadata, scrolled: boolean): Metadata {
  if (scrolled) return { ...metadata, scrolled: true };
  const { scrolled: _scrolled, ...rest } = metadata;
  return rest;
}

/** JupyterLab's 1–6 keys: the cell's text as a markdown heading of that level (an existing heading mark replaced). */
export function asHeading(source: string, level: number): string {
  return `${'#'.repeat(level)} ${source.replace(/^#{1,6}\s*/, '')}`;
}

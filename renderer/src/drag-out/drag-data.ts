/**
 * What a drag of tree rows carries, read and written in one place: the tree writes it, the composers,
 * the agent's transcript and the editors read it. Paths are workspace-relative, as everywhere in the renderer.
 */
import { perBridge } from '../base';

/** The tree's own drag type: a JSON array of workspace-relative paths. */
export const TREE_PATHS_TYPE = 'application/x-kiln-paths';
/** Chromium's drag-out-to-download type: `mime:name:url`, one file. */
export const DOWNLOAD_URL_TYPE = 'DownloadURL';

/** The part of DataTransfer these helpers use, so they are tested without a browser drag. */
export interface DragData {
  readonly types: readonly string[];
  getData(type: string): string;
  setData(type: string, value: string): void;
}

export interface TreeDragOut {
  paths: string[];
  /**
   * The web host's ticketed URL of the single dragged entry (download-tickets.ts): it then also downloads when
   * dropped outside the browser.
   */
  downloadUrl?: string;
  /** The kind of the single dragged entry (a folder downloads as a zip). */
  kind?: 'file' | 'dir';
}

/** The name a download is saved under: the file's name, a folder's name plus `.zip`. */
export function downloadName(rel: string, kind: 'file' | 'dir', workspaceName = 'workspace'): string {
  const name = rel.split('/').filter(Boolean).pop() ?? workspaceName;
  return kind === 'dir' ? `${name}.zip` : name;
}

/** Fills a drag's data: the tree's paths, the paths as text (other apps), and for one web-host entry a DownloadURL. */
export function writeTreeDrag(data: DragData, drag: TreeDragOut): void {
  data.setData(TREE_PATHS_TYPE, JSON.stringify(drag.paths));
  data.setData('text/plain', pathsAsText(drag.paths));
  if (drag.downloadUrl && drag.paths.length === 1) {
    const kind = drag.kind ?? 'file';
    const rel = drag.paths[0]!;
    // The name and URL are separated by ':'; a name holding ':' would cut the URL short.
    const name = downloadName(rel, kind).replace(/:/g, '_');
    const mime = kind === 'dir' ? 'application/zip' : 'application/octet-stream';
    data.setData(DOWNLOAD_URL_TYPE, `${mime}:${name}:${drag.downloadUrl}`);
  }
}

/**
 * The rows of the tree's drag while it is on. Electron hands that drag to the OS (the real files), so inside the
 * window it arrives as a drop of files: this says they are the tree's rows, to be treated as paths like any tree drag.
 * One per bridge: the rows are paths of that window's workspace, never to be dropped as paths into another's.
 */
export class TreeDragInFlight {
  private rows: string[] | null = null;

  begin(paths: string[]): void {
    this.rows = paths;
  }

  end(): void {
    this.rows = null;
  }

  /** Whether a drag (while over a target, when only its types can be read) comes from the tree. */
  isTreeDrag(data: Pick<DragData, 'types'>): boolean {
    return data.types.includes(TREE_PATHS_TYPE) || (this.rows !== null && data.types.includes('Files'));
  }

  /** The tree paths a drop carries, or null when it is not a tree drag (or its data is not a list of paths). */
  pathsOf(data: Pick<DragData, 'types' | 'getData'>): string[] | null {
    if (!this.isTreeDrag(data)) return null;
    if (!data.types.includes(TREE_PATHS_TYPE)) return this.rows;
    try {
      const parsed: unknown = JSON.parse(data.getData(TREE_PATHS_TYPE));
      return Array.isArray(parsed) && parsed.every((p) => typeof p === 'string') ? parsed : null;
    } catch {
      return null;
    }
  }
}

/** The window's tree drag (a hook; `useTreeDragInFlight.of(bridge)` outside React). */
export const useTreeDragInFlight = perBridge(() => new TreeDragInFlight());

/** Several paths go into a composer one per line. */
export function pathsAsText(paths: readonly string[]): string {
  return paths.map((p) => p || '.').join('\n');
}

/**
 * `target` relative to the folder of the open file `from` (VS Code's Shift-drop convention): a sibling is its
 * name, a file below is `sub/x.py`, one elsewhere climbs with `../`.
 */
export function relativeToFile(from: string, target: string): string {
  const fromDir = from.split('/').filter(Boolean).slice(0, -1);
  const to = target.split('/').filter(Boolean);
  let common = 0;
  while (common < fromDir.length && common < to.length && fromDir[common] === to[common]) common++;
  const parts = [...fromDir.slice(common).map(() => '..'), ...to.slice(common)];
  return parts.join('/') || '.';
}

/**
 * An OS path as a workspace-relative path, or null when it lies outside the workspace root. Both are absolute;
 * separators are unified so a Windows path compares like a POSIX one.
 */
export function workspaceRelativeOf(root: string, absolute: string): string | null {
  const norm = (p: string) => p.replace(/\\/g, '/').replace(/\/+$/, '');
  const base = norm(root);
  const full = norm(absolute);
  const windows = /^[A-Za-z]:/.test(base);
  const same = (a: string, b: string) => (windows ? a.toLowerCase() === b.toLowerCase() : a === b);
  if (same(full, base)) return '';
  const head = full.slice(0, base.length + 1);
  if (!same(head, `${base}/`)) return null;
  const rest = full.slice(base.length + 1);
  return rest.split('/').includes('..') ? null : rest;
}

/**
 * A message with `snippet` put in place of its selection [start, end), set apart from the words around it
 * (a space, or a line break for several paths), and where the caret goes after it.
 */
export function insertSnippet(
  text: string,
  start: number,
  end: number,
  snippet: string,
): { text: string; caret: number } {
  const before = text.slice(0, start);
  const after = text.slice(end);
  const lead = before && !/\s$/.test(before) ? (snippet.includes('\n') ? '\n' : ' ') : '';
  const trail = after && !/^\s/.test(after) ? ' ' : '';
  const inserted = lead + snippet + trail;
  return { text: before + inserted + after, caret: before.length + inserted.length };
}

import { desktopApi } from '../drag-out';

/**
 * What the operator brought in from the desktop, as items for one target folder: each top-level file or folder
 * with the files under it (paths relative to the target) and its folders, so a folder keeps its structure.
 */
export interface IncomingFile {
  /** Relative to the target folder, POSIX: "photos/2024/a.jpg". */
  rel: string;
  file: File;
}

export interface IncomingItem {
  /** The top-level name, as it would land in the target folder. */
  name: string;
  isDir: boolean;
  files: IncomingFile[];
  /** Folders under it (relative to the target, parents first), the item itself included when it is one. */
  dirs: string[];
  /** Electron: the item's real path (`webUtils.getPathForFile`), so main copies it on the filesystem. */
  source?: string;
}

/** An OS drag carries files; the tree's own drag and text drags do not. */
export function carriesOsFiles(data: DataTransfer | null): boolean {
  return Boolean(data && Array.from(data.types).includes('Files'));
}

/** Groups files by their first path segment; folders that hold nothing still come through `dirs`. */
export function groupIncoming(files: IncomingFile[], dirs: string[] = []): IncomingItem[] {
  const items = new Map<string, IncomingItem>();
  const itemOf = (rel: string, isDir: boolean) => {
    const name = rel.split('/')[0];
    let item = items.get(name);
    if (!item) items.set(name, (item = { name, isDir, files: [], dirs: isDir ? [name] : [] }));
    return item;
  };
  for (const dir of dirs) {
    const item = itemOf(dir, true);
    if (!item.dirs.includes(dir)) item.dirs.push(dir);
  }
  for (const entry of files) {
    const nested = entry.rel.includes('/');
    const item = itemOf(entry.rel, nested);
    item.files.push(entry);
    // Every folder on the way, parents first, so empty-looking levels exist before their files.
    const parts = entry.rel.split('/').slice(0, -1);
    for (let i = 1; i <= parts.length; i++) {
      const dir = parts.slice(0, i).join('/');
      if (!item.dirs.includes(dir)) item.dirs.push(dir);
    }
  }
  for (const item of items.values()) item.dirs.sort((a, b) => a.split('/').length - b.split('/').length);
  return [...items.values()];
}

/** Re-roots an item under another top-level name (Keep both: "photos copy"). */
export function renameIncoming(item: IncomingItem, name: string): IncomingItem {
  const swap = (rel: string) => name + rel.slice(item.name.length);
  return {
    ...item,
    name,
    files: item.files.map((f) => ({ ...f, rel: swap(f.rel) })),
    dirs: item.dirs.map(swap),
  };
}

/**
 * Files chosen in an `<input type=file>`; a folder input names each with `webkitRelativePath`. In Electron the
 * chosen files have real paths too, and main copies them as it does a drop.
 */
export function incomingFromInput(files: ArrayLike<File>): IncomingItem[] {
  const items = groupIncoming(Array.from(files, (file) => ({ rel: file.webkitRelativePath || file.name, file })));
  const port = typeof window === 'undefined' ? null : desktopApi();
  return port ? withRealPaths(items, (file) => port.pathForFile(file)) : items;
}

/**
 * Gives each item its real path, from its first file's: a chosen folder's path is that file's less the part below
 * the folder (the same length in either separator style). Unchanged when a file has none.
 */
export function withRealPaths(items: IncomingItem[], pathForFile: (file: File) => string): IncomingItem[] {
  const known = items.map((item) => {
    const first = item.files[0];
    const real = first ? pathForFile(first.file) : '';
    return real ? { ...item, source: real.slice(0, real.length - (first.rel.length - item.name.length)) } : item;
  });
  return known.every((item) => item.source) ? known : items;
}

/**
 * Reads a drop. Entries must be taken from the event synchronously (the DataTransfer empties when the handler
 * returns); folders are then read through `webkitGetAsEntry`. In Electron each top-level item has a real path and
 * nothing is read here: main copies it, links as links.
 */
export function readDrop(data: DataTransfer): Promise<IncomingItem[]> {
  const port = desktopApi();
  const dropped = Array.from(data.files);
  const paths = port ? dropped.map((file) => port.pathForFile(file)) : [];
  if (dropped.length && paths.length === dropped.length && paths.every(Boolean)) {
    return Promise.resolve(
      dropped.map((file, i) => ({ name: file.name, isDir: false, files: [], dirs: [], source: paths[i] })),
    );
  }
  const taken = Array.from(data.items)
    .filter((item) => item.kind === 'file')
    .map((item) => ({ entry: item.webkitGetAsEntry?.() ?? null, file: item.getAsFile() }));
  return (async () => {
    const files: IncomingFile[] = [];
    const dirs: string[] = [];
    for (const { entry, file } of taken) {
      if (entry?.isDirectory) await readFolder(entry as FileSystemDirectoryEntry, entry.name, files, dirs);
      else if (file) files.push({ rel: file.name, file });
    }
    return groupIncoming(files, dirs);
  })();
}

async function readFolder(
  folder: FileSystemDirectoryEntry,
  rel: string,
  files: IncomingFile[],
  dirs: string[],
): Promise<void> {
  dirs.push(rel);
  const reader = folder.createReader();
  // readEntries answers in batches (100 in Chromium) until an empty one.
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject));
    if (!batch.length) break;
    for (const entry of batch) {
      const childRel = `${rel}/${entry.name}`;
      if (entry.isDirectory) await readFolder(entry as FileSystemDirectoryEntry, childRel, files, dirs);
      else {
        const file = await new Promise<File>((resolve, reject) => (entry as FileSystemFileEntry).file(resolve, reject));
        files.push({ rel: childRel, file });
      }
    }
  }
}

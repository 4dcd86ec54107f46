import { z } from 'zod';
import { request } from './define';

/** A workspace-relative, POSIX-separated path; '' is the workspace root. The main side guards it. */
export const RelPath = z.string().max(4096);

export const Origin = z.enum(['operator', 'agent', 'external']);
export type Origin = z.infer<typeof Origin>;

/** FIFOs, sockets and devices are listed as what they are and never opened. */
export const EntryKind = z.enum(['file', 'dir', 'fifo', 'socket', 'device']);
export type EntryKind = z.infer<typeof EntryKind>;

export const Entry = z.object({
  name: z.string(),
  path: RelPath,
  /** For a symbolic link, what it points to (a link to a folder opens like one; it is never watched through). */
  kind: EntryKind,
  /** A symbolic link. */
  link: z.boolean().optional(),
  /** Present from `stat`; `list` leaves them out so a 100,000-entry folder lists fast. */
  size: z.number().optional(),
  mtimeMs: z.number().optional(),
  /** Dotfile or dot-folder; the tree hides these unless the operator asks. */
  hidden: z.boolean(),
});
export type Entry = z.infer<typeof Entry>;

/**
 * A folder listing as it crosses the wire: names in display order and one letter per name for its kind
 * (`d` folder, `f` file, `p` FIFO, `s` socket, `c` device; upper case when it is a symbolic link).
 * Five times smaller than Entry objects, and a page of it paints before the rest arrives.
 */
export const Listing = z.object({
  path: RelPath,
  /** Entries in the whole folder; `names` holds those from `offset` on, up to the page's limit. */
  total: z.number(),
  offset: z.number(),
  names: z.array(z.string()),
  kinds: z.string(),
});
export type Listing = z.infer<typeof Listing>;

export const FileContent = z.object({
  path: RelPath,
  /** Decoded text; null when the file is binary. */
  text: z.string().nullable(),
  binary: z.boolean(),
  encoding: z.string(),
  size: z.number(),
  hash: z.string(),
  mtimeMs: z.number(),
  /** True when only the first part was read because the file is very large. */
  truncated: z.boolean(),
});
export type FileContent = z.infer<typeof FileContent>;

export const WriteResult = z.object({ path: RelPath, hash: z.string(), mtimeMs: z.number(), size: z.number() });
export type WriteResult = z.infer<typeof WriteResult>;

export const Prefs = z.object({
  showHidden: z.boolean(),
  minimap: z.boolean(),
  lastWorkspace: z.string().nullable(),
  diffSideBySide: z.boolean(),
  leftRailWidth: z.number(),
  rightRailWidth: z.number(),
  /** The pause before hovering a name in a notebook cell shows the kernel's docstring (ms); 0 turns hover off. */
  notebookHoverDelayMs: z.number().int().min(0).max(10_000),
  /** Record each run's timing in the cell's metadata `execution`, as JupyterLab's recordTiming does. */
  notebookRecordTiming: z.boolean(),
  /** As VS Code's `files.autoSave`: off, a moment after typing stops, or when the tab or window loses focus. */
  autoSave: z.enum(['off', 'afterDelay', 'onFocusChange']),
  /** As VS Code's `files.hotExit`: leaving with unsaved tabs asks nothing, they come back on the next start. */
  hotExit: z.boolean(),
  /** The Python language server (pyright): `off` stops it and starts none. */
  'python.languageServer': z.enum(['on', 'off']),
  /** Where diagnostics come from: the open files, or every Python file of the workspace. */
  'python.diagnostics': z.enum(['openFiles', 'workspace']),
});
export type Prefs = z.infer<typeof Prefs>;

export const GutterChange = z.object({
  kind: z.enum(['added', 'modified', 'deleted']),
  startLine: z.number().int().min(1),
  endLine: z.number().int().min(1),
});
export type GutterChange = z.infer<typeof GutterChange>;

/**
 * One entry of the change feed. Kiln's own operations report what they did (a rename or move is one
 * `moved`, even for a folder: every owner applies it to the whole subtree); the watcher adds what other
 * programs did, where a rename can only be seen as `deleted` + `created`.
 */
export const FsChange = z.discriminatedUnion('type', [
  z.object({ type: z.literal('created'), path: RelPath, isDir: z.boolean(), origin: Origin }),
  z.object({ type: z.literal('updated'), path: RelPath, isDir: z.literal(false), origin: Origin }),
  z.object({ type: z.literal('deleted'), path: RelPath, isDir: z.boolean(), origin: Origin }),
  z.object({ type: z.literal('moved'), from: RelPath, to: RelPath, isDir: z.boolean(), origin: Origin }),
  /**
   * Many new files in one folder made by one Kiln operation (a run's writes applied): one event for the folder,
   * every file named (`createdPaths` in shared/fs-change gives their paths; `singleChanges` one `created` each).
   */
  z.object({
    type: z.literal('createdFiles'),
    dir: RelPath,
    names: z.array(z.string().min(1)).min(1),
    isDir: z.literal(false),
    origin: Origin,
  }),
]);
export type FsChange = z.infer<typeof FsChange>;
export type FsMove = Extract<FsChange, { type: 'moved' }>;

/** Set when the OS refused more file watches: what degraded and how to raise the limit. */
export const WatchDegraded = z.object({
  reason: z.enum(['ENOSPC', 'EMFILE']),
  /** Folders that kept their watch. */
  watchedFolders: z.number(),
  message: z.string(),
});
export type WatchDegraded = z.infer<typeof WatchDegraded>;

export const TransferProgress = z.object({
  jobId: z.string(),
  done: z.number(),
  total: z.number(),
  finished: z.boolean(),
});

export const workspaceRequests = {
  'workspace.info': request(z.object({}), z.object({ root: z.string(), name: z.string(), trash: z.boolean() })),
  'workspace.list': request(
    z.object({
      path: RelPath,
      showHidden: z.boolean().default(false),
      /** A page of the listing: entries from `offset`, at most `limit` of them (default: all). */
      offset: z.number().int().min(0).default(0),
      limit: z.number().int().min(1).optional(),
    }),
    Listing,
  ),
  'workspace.stat': request(z.object({ path: RelPath }), Entry),
  'workspace.read': request(z.object({ path: RelPath }), FileContent),
  'workspace.write': request(
    z.object({
      path: RelPath,
      text: z.string(),
      /** The hash the caller last read; a mismatch is E_CHANGED_ON_DISK instead of a silent overwrite. */
      expectedHash: z.string().optional(),
    }),
    WriteResult,
  ),
  'workspace.createFile': request(z.object({ path: RelPath, text: z.string().default('') }), WriteResult),
  'workspace.createDir': request(z.object({ path: RelPath }), Entry),
  'workspace.move': request(
    z.object({
      from: RelPath,
      to: RelPath,
      onConflict: z.enum(['reject', 'overwrite']).default('reject'),
      jobId: z.string().optional(),
    }),
    z.object({ path: RelPath }),
  ),
  'workspace.copy': request(
    z.object({ from: RelPath, toDir: RelPath, jobId: z.string().optional() }),
    z.object({ path: RelPath }),
  ),
  'workspace.delete': request(
    z.object({ path: RelPath, permanent: z.boolean().default(false) }),
    z.object({ trashed: z.boolean() }),
  ),
  'workspace.count': request(z.object({ path: RelPath }), z.object({ files: z.number(), dirs: z.number() })),
  'workspace.absolutePath': request(z.object({ path: RelPath }), z.object({ path: z.string() })),
  'workspace.nextFreeName': request(z.object({ dir: RelPath, name: z.string() }), z.object({ path: RelPath })),
  'workspace.cancelJob': request(z.object({ jobId: z.string() }), z.object({ cancelled: z.boolean() })),
  /**
   * Whether live updates cover the whole workspace; the UI shows `degraded.message` once when not. `walked`:
   * the background walk that sets up the watches has finished (`watch.walked` says when).
   */
  'watch.status': request(
    z.object({}),
    z.object({ degraded: WatchDegraded.nullable(), watchedFolders: z.number(), walked: z.boolean() }),
  ),
  'editor.gutter': request(
    z.object({
      path: RelPath,
      /** The editor's buffer; when given, the changes are the buffer's rather than the file's on disk. */
      text: z.string().optional(),
    }),
    z.array(GutterChange),
  ),
  'prefs.get': request(z.object({}), Prefs),
  /** Changes preferences; `lastWorkspace` is not among them: only the host's folder-open flow sets it. */
  'prefs.set': request(Prefs.omit({ lastWorkspace: true }).partial().strict(), Prefs),
} as const;

export const workspaceEvents = {
  'fs.change': FsChange,
  'fs.progress': TransferProgress,
  'watch.degraded': WatchDegraded,
  /** The watcher's background walk of the workspace finished (again after a restart with new excludes). */
  'watch.walked': z.object({ watchedFolders: z.number() }),
} as const;

import { execFile } from 'node:child_process';
import { closeSync, constants as fsConstants, fstatSync, openSync, readSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import path from 'node:path';
import type { RunChanges } from '../../shared/contract/verbs';
import { KilnError } from '../../shared/errors';
import type { OverlayChange } from '../sandbox';
import type { CreateFilesResult, NewFile, Workspace } from '../workspace';
import { createLogger } from '../log';

const log = createLogger('verbs.run-changes');
// What the run wrote may be new to the workspace: no file below it is the usual answer, not a failure.
const absentBelow = log.caught('the path a run wrote does not exist in the workspace (yet)', null);

/** Files up to this size are applied as exact bytes (hashed, kept in local history); larger ones are streamed. */
const WHOLE_FILE_BYTES = 64 * 1024 * 1024;
/** How many files are applied at once the ordinary way (each waits on the disk and on local history in turn). */
const FILES_AT_ONCE = 16;
/** Files up to this size are read here and created as a batch per folder; larger ones go file by file. */
const BATCH_FILE_BYTES = 1024 * 1024;
/**
 * Bytes of a folder's small files read and created per batch (bounds what is held in memory at once, and with each
 * file counted as 1 KiB at least, the names one change event carries: 16,384): a folder of small files is one
 * batch, one history pack and one change event, up to this much.
 */
export const BATCH_BYTES = 16 * 1024 * 1024;

type FileChange = Extract<OverlayChange, { kind: 'file' }>;

export interface ApplyRunChangesOptions {
  workspace: Workspace;
  /** The run's upper layer and what it changed (overlayChanges). */
  upper: string;
  changes: OverlayChange[];
  /**
   * When the run started, on the filesystem's clock (RunOverlay.startedAt): a workspace entry with a ctime from then
   * on was changed outside the run. One changed in that same clock tick just before counts too (a needless copy
   * beside at worst, never a silent overwrite).
   */
  startedAt: number;
  /** Keeps the run's folder: a change could not be applied, and its content is only there. */
  keep(): Promise<void>;
  /**
   * Why a path may not be written by agent code (ProtectedPaths.writeRefusal), or null: such a change is not
   * applied but listed in `refused`. A folder alone is skipped without a word (the sandbox's read-only placeholders
   * for a missing .kiln/ or .git/ are such folders); what the run put in it is listed.
   */
  refuse?(rel: string): string | null;
  /** What one batch of a folder's small files holds at most (BATCH_BYTES; tests use less). */
  batchBytes?: number;
}

/**
 * Applies what a run wrote in its overlay to the workspace, through the workspace like any agent write: each version
 * replaced goes to local history under the current write cause (the Agent's turn, an MCP batch), the change feed
 * reports it with origin `agent`, and "Undo this turn" covers it. Where the workspace's entry changed while the run
 * went on (another program, the operator's save), it is left as it is: a file the run changed too is written beside
 * it as "name (from run).ext", a deletion is not done, and both are listed, so nothing either side wrote is lost.
 */
export async function applyRunChanges(options: ApplyRunChangesOptions): Promise<RunChanges> {
  const { workspace, upper } = options;
  const root = workspace.root;
  const result: RunChanges = { staged: true, created: [], changed: [], deleted: [], kept: [] };
  let unapplied = false;
  const refused: { path: string; why: string }[] = [];

  const lowerInfo = (rel: string) => fs.lstat(path.join(root, rel)).catch(absentBelow);
  const changedOutside = (info: { ctimeMs: number } | null) => info !== null && info.ctimeMs >= options.startedAt;

  /** Deletes `rel` from the workspace, a folder file by file (each kept in history); false if something stayed. */
  const remove = async (rel: string): Promise<boolean> => {
    const info = await lowerInfo(rel);
    if (!info) return true;
    // A folder the run removed may hold a protected one (a nested repository's .git): that stays.
    const why = options.refuse?.(rel);
    if (why) {
      refused.push({ path: rel, why });
      return false;
    }
    if (info.isDirectory()) {
      let all = true;
      for (const name of await fs.readdir(path.join(root, rel))) all = (await remove(`${rel}/${name}`)) && all;
      if (!all) return false;
    } else if (changedOutside(info)) {
      result.kept.push({ path: rel, why: 'changed outside the run; the run deleted it, it was kept' });
      return false;
    }
    try {
      await workspace.delete(rel, { origin: 'agent' });
    } catch (err) {
      if (!(err instanceof KilnError && err.code === 'E_PERMISSION')) throw err;
      // No trash here: the file's content is in local history (within its size limit) under the turn.
      await workspace.delete(rel, { origin: 'agent', permanent: true });
    }
    if (!info.isDirectory()) result.deleted.push(rel);
    return true;
  };

  const writeFile = async (rel: string, source: string, size: number): Promise<void> => {
    let info = await lowerInfo(rel);
    if (info?.isDirectory()) {
      if (!(await remove(rel))) return;
      info = null;
    }
    const bytes = size <= WHOLE_FILE_BYTES ? await readNoFollow(source) : null;
    // The run's permission bits (a script it made executable stays so).
    const mode = (await fs.lstat(source)).mode & 0o777;
    // Opened for writing but left as it was (or changed to what the workspace holds now): nothing to apply.
    if (bytes && info?.isFile() && info.size === bytes.length && (info.mode & 0o777) === mode) {
      const now = await readNoFollow(path.join(root, rel)).catch(absentBelow);
      if (now?.equals(bytes)) return;
    }
    if (info && changedOutside(info)) {
      const beside = await besideName(workspace, rel);
      await put(beside, bytes, source, false, mode);
      result.created.push(beside);
      result.kept.push({ path: rel, why: `changed outside the run; the run's version is in ${beside}`, beside });
      return;
    }
    await put(rel, bytes, source, info !== null, mode);
    (info ? result.changed : result.created).push(rel);
  };

  const put = async (rel: string, bytes: Buffer | null, source: string, exists: boolean, mode: number) => {
    if (bytes) {
      // Synced once for the whole run at the end (the run's folder keeps its copy until then), not file by file.
      // Its folder was made before it (the walk lists parents first): no folder-by-folder check per file.
      await workspace.writeBytes(rel, bytes, { origin: 'agent', mode, durable: false });
    } else {
      const handle = await fs.open(source, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW);
      await workspace.receive(rel, handle.createReadStream(), {
        origin: 'agent',
        onConflict: exists ? 'overwrite' : 'reject',
        mode,
      });
    }
  };

  const applyOrKeep = async (change: OverlayChange): Promise<void> => {
    const why = options.refuse?.(change.path);
    if (why) {
      if (change.kind !== 'dir') refused.push({ path: change.path, why });
      return;
    }
    try {
      await apply(change);
    } catch (err) {
      // The rest still applies; this one stays in the run's folder, which is then kept.
      unapplied = true;
      const message = err instanceof Error ? err.message : String(err);
      result.kept.push({
        path: change.path,
        why: `not applied (${message}); the run's version is kept in ${path.join(upper, change.path)}`,
      });
    }
  };
  /**
   * The small files of one folder, as one batch: those new to the workspace are created together (the folder
   * guarded once, history told once, see Workspace.createFilesIn); a name taken in the workspace, and any file
   * not read here, goes the ordinary way, file by file.
   */
  const applyFolder = async (dir: string, changes: FileChange[]): Promise<void> => {
    const ordinary: FileChange[] = [];
    for (let next = 0; next < changes.length;) {
      const newFiles: (NewFile & { change: FileChange })[] = [];
      // The bound is checked before each file: a batch passes it by at most one file (BATCH_FILE_BYTES).
      for (let bytes = 0; next < changes.length && bytes < (options.batchBytes ?? BATCH_BYTES); next++) {
        const change = changes[next];
        const why = options.refuse?.(change.path);
        if (why) refused.push({ path: change.path, why });
        else if (change.size > BATCH_FILE_BYTES) ordinary.push(change);
        else {
          const read = readSmallFile(change.source);
          if (read) {
            newFiles.push({ name: path.posix.basename(change.path), ...read, change });
            // 1 KiB at least: a folder of 100,000 empty files is several batches, not one event naming them all.
            bytes += Math.max(read.bytes.length, 1024);
          } else ordinary.push(change);
        }
      }
      if (newFiles.length === 0) continue;
      let outcome: CreateFilesResult;
      try {
        outcome = await workspace.createFilesIn(dir, newFiles, { origin: 'agent' });
      } catch {
        // The folder itself could not be pinned (gone, replaced): nothing of the batch was made; file by file.
        ordinary.push(...newFiles.map(({ change }) => change));
        continue;
      }
      result.created.push(...outcome.created);
      const byName = new Map(newFiles.map((file) => [file.name, file.change]));
      for (const name of outcome.taken) ordinary.push(byName.get(name)!);
      for (const { name, message } of outcome.failed) {
        unapplied = true;
        const rel = byName.get(name)!.path;
        result.kept.push({
          path: rel,
          why: `not applied (${message}); the run's version is kept in ${path.join(upper, rel)}`,
        });
      }
    }
    // Side by side and independent: several at once, so none waits on another's disk and history in turn.
    await inParallel(ordinary, FILES_AT_ONCE, applyOrKeep);
  };
  // Files side by side are independent (their folders come before them): batched by folder. Anything else applies
  // in order.
  let files: FileChange[] = [];
  const flushFiles = async () => {
    const byFolder = new Map<string, FileChange[]>();
    for (const change of files) {
      const dir = path.posix.dirname(change.path);
      const key = dir === '.' ? '' : dir;
      byFolder.set(key, [...(byFolder.get(key) ?? []), change]);
    }
    files = [];
    for (const [dir, changes] of byFolder) await applyFolder(dir, changes);
  };
  for (const change of options.changes) {
    if (change.kind === 'file') {
      files.push(change);
      continue;
    }
    await flushFiles();
    await applyOrKeep(change);
  }
  await flushFiles();
  if (options.changes.length > 0) await syncFilesystem(root);
  if (unapplied) await options.keep();
  for (const list of [result.created, result.changed, result.deleted]) list.sort();
  const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  result.kept.sort(byPath);
  if (refused.length > 0)
    result.refused = [...new Map(refused.map((entry) => [entry.path, entry])).values()].sort(byPath);
  return result;

  async function apply(change: OverlayChange): Promise<void> {
    const rel = change.path;
    switch (change.kind) {
      case 'dir': {
        const info = await lowerInfo(rel);
        if (info?.isDirectory()) break;
        if (info && !(await remove(rel))) break;
        await workspace.createDir(rel, { origin: 'agent' }).catch((err) => {
          if (!(err instanceof KilnError && err.code === 'E_EXISTS')) throw err;
        });
        break;
      }
      case 'opaque': {
        // The run deleted the folder and made it anew: what the new one does not hold is gone.
        const kept = new Set(await fs.readdir(path.join(upper, rel)));
        const before = await fs
          .readdir(path.join(root, rel))
          .catch(
            log.caught(
              'the folder the run made anew did not exist in the workspace: nothing of it to remove',
              [] as string[],
            ),
          );
        for (const name of before) if (!kept.has(name)) await remove(`${rel}/${name}`);
        break;
      }
      case 'deleted':
        await remove(rel);
        break;
      case 'file':
        await writeFile(rel, change.source, change.size);
        break;
      case 'symlink': {
        const info = await lowerInfo(rel);
        if (info && changedOutside(info)) {
          result.kept.push({ path: rel, why: 'changed outside the run; the link the run made there was not applied' });
          break;
        }
        if (info?.isDirectory() && !(await remove(rel))) break;
        // Made as a link (its target's text), never followed; what it replaced is kept in history.
        await workspace.writeLink(rel, await fs.readlink(change.source), { origin: 'agent' });
        (info ? result.changed : result.created).push(rel);
        break;
      }
    }
  }
}

/**
 * Flushes the workspace's filesystem (syncfs, by coreutils' `sync -f`): one wait for the whole run's writes
 * instead of an fsync per file. Where there is no such `sync`, the caller's folder removal waits on nothing: the
 * run's writes are then as durable as any program's unsynced writes.
 */
function syncFilesystem(root: string): Promise<void> {
  return new Promise((resolve) => execFile('sync', ['-f', root], () => resolve()));
}

/** Runs `work` over `items`, at most `limit` at a time. */
async function inParallel<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/**
 * A small file of the upper layer, its bytes and permission bits, read without following a link put in its place;
 * null when it is not a plain file any more (the ordinary path then says why). Synchronous: a few calls on a small
 * file cost less than their hops through the thread pool.
 */
function readSmallFile(file: string): { bytes: Buffer; mode: number } | null {
  let fd: number;
  try {
    fd = openSync(file, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW);
  } catch {
    // Not swallowed: the ordinary path opens it again and keeps the run's folder, saying why.
    return null;
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile() || info.size > BATCH_FILE_BYTES) return null;
    // Read to the size just seen, not with readFileSync (which asks fstat again): a syscall less per file.
    const bytes = Buffer.allocUnsafe(info.size);
    let done = 0;
    while (done < bytes.length) {
      const read = readSync(fd, bytes, done, bytes.length - done, null);
      if (read === 0) break;
      done += read;
    }
    return { bytes: done === bytes.length ? bytes : bytes.subarray(0, done), mode: info.mode & 0o777 };
  } finally {
    closeSync(fd);
  }
}

/** Reads a file of the upper layer without following a link put in its place. */
async function readNoFollow(file: string): Promise<Buffer> {
  const handle = await fs.open(file, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW);
  try {
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/** "name (from run).ext" beside `rel`, or the first free "… copy N" of it. */
async function besideName(workspace: Workspace, rel: string): Promise<string> {
  const dir = path.posix.dirname(rel);
  const ext = path.posix.extname(rel);
  const stem = path.posix.basename(rel, ext);
  return (await workspace.nextFreeName(dir === '.' ? '' : dir, `${stem} (from run)${ext}`)).path;
}

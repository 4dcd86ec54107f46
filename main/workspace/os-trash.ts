import { lstat, mkdir, open, rename, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import trash from 'trash';
import { createLogger } from '../log';

const log = createLogger('workspace.trash');

/**
 * Moves Kiln's staged copy of a deleted entry to the OS trash, recording where it was deleted from, so the
 * file manager's Restore puts it back there; false where the platform offers no trash.
 */
export async function osTrash(stagedPath: string, originalPath: string): Promise<boolean> {
  if (process.platform === 'linux' && (await freedesktopTrash(stagedPath, originalPath))) return true;
  // Elsewhere (and across devices) the `trash` package records the staged path; a Restore then lands in
  // Kiln's holder, which the next start gives back to the workspace root.
  try {
    await trash(stagedPath, { glob: false });
    return true;
  } catch (err) {
    // No trash on this platform or volume: the delete asks for a permanent one instead.
    log.warn('the OS trash refused the entry; answered as no trash', { path: originalPath, err });
    return false;
  }
}

/**
 * The freedesktop.org home trash, written directly because the staged path is not where the entry lived:
 * info/<name>.trashinfo (claimed with an exclusive create) names the original path, then the entry is
 * renamed into files/. False when the home trash is on another device than the entry.
 */
async function freedesktopTrash(stagedPath: string, originalPath: string): Promise<boolean> {
  const home = path.join(process.env.XDG_DATA_HOME || path.join(os.homedir(), '.local', 'share'), 'Trash');
  const files = path.join(home, 'files');
  const info = path.join(home, 'info');
  await mkdir(files, { recursive: true, mode: 0o700 });
  await mkdir(info, { recursive: true, mode: 0o700 });
  const base = path.basename(originalPath);
  for (let attempt = 1; attempt < 10_000; attempt++) {
    const name = attempt === 1 ? base : `${base}.${attempt}`;
    const infoPath = path.join(info, `${name}.trashinfo`);
    const handle = await open(infoPath, 'wx', 0o600).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'EEXIST') return null;
      throw err;
    });
    if (!handle) continue;
    // rename() would replace a file left in files/ without its record: never overwrite anything in the trash.
    if (
      await lstat(path.join(files, name)).then(
        () => true,
        () => false,
      )
    ) {
      await handle.close();
      await rm(infoPath, { force: true });
      continue;
    }
    try {
      await handle.writeFile(trashInfo(originalPath, new Date()));
    } finally {
      await handle.close();
    }
    try {
      await rename(stagedPath, path.join(files, name));
      return true;
    } catch (err) {
      await rm(infoPath, { force: true });
      // Another device than the home trash: the `trash` package knows the per-volume trash folders.
      if ((err as NodeJS.ErrnoException).code === 'EXDEV') return false;
      throw err;
    }
  }
  return false;
}

/** The spec's record: the path URL-escaped (slashes kept) and the local time without a zone. */
export function trashInfo(originalPath: string, at: Date): string {
  const escaped = originalPath.split('/').map(encodeURIComponent).join('/');
  const pad = (n: number) => String(n).padStart(2, '0');
  const date = `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}`;
  return `[Trash Info]\nPath=${escaped}\nDeletionDate=${date}\n`;
}

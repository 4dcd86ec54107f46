import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** A real temporary folder for tests; `files` maps relative paths to contents (a trailing '/' makes a folder). */
export async function makeTempTree(
  files: Record<string, string> = {},
): Promise<{ root: string; cleanup: () => Promise<void> }> {
  const root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'kiln-test-')));
  for (const [rel, content] of Object.entries(files)) {
    const abs = path.join(root, rel);
    if (rel.endsWith('/')) await mkdir(abs, { recursive: true });
    else {
      await mkdir(path.dirname(abs), { recursive: true });
      await writeFile(abs, content);
    }
  }
  return { root, cleanup: () => rm(root, { recursive: true, force: true }) };
}

/** An empty real temporary folder (an app data folder, a static dir) and its removal. */
export async function makeTempDir(prefix = 'kiln-test-'): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await realpath(await mkdtemp(path.join(os.tmpdir(), prefix)));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

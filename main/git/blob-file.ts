import { spawn } from 'node:child_process';
import { mkdtemp, open, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { KilnError } from '../../shared/errors';

/*
 * A whole file's version out of git (`git show <rev>:<path>`) for a file that may be tens of megabytes (a
 * notebook with its plots). Through a pipe, main's thread takes git's output 64 KB at a time, ~300 wakeups for a
 * 20 MB notebook, and git waits whenever that thread is busy (parsing the other side of a compare). So git
 * writes into a private temporary file instead, with no part of main in between, and the file is read in one go
 * by the thread pool.
 */

export interface BlobReadOptions {
  git: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Larger output is refused (E_TOO_LARGE), as execFile's maxBuffer refused it. */
  maxBytes: number;
}

/** git's output as text; null when git fails (a path the revision lacks, no commit yet). */
export async function readGitOutputViaFile(options: BlobReadOptions): Promise<string | null> {
  // A private folder (0700): the version read is the operator's content, as readable as the workspace only.
  const dir = await mkdtemp(path.join(os.tmpdir(), 'kiln-git-blob-'));
  try {
    const file = path.join(dir, 'blob');
    const handle = await open(file, 'w', 0o600);
    let ok: boolean;
    try {
      ok = await new Promise<boolean>((resolve) => {
        const child = spawn(options.git, options.args, {
          cwd: options.cwd,
          env: options.env,
          stdio: ['ignore', handle.fd, 'ignore'],
        });
        // A git that cannot start reads as a failed read, as execFile's error did.
        child.on('error', () => resolve(false));
        child.on('close', (code) => resolve(code === 0));
      });
    } finally {
      await handle.close();
    }
    if (!ok) return null;
    const { size } = await stat(file);
    if (size > options.maxBytes)
      throw new KilnError('E_TOO_LARGE', `git's version is too large to read here (${size} bytes)`, {
        size,
        limit: options.maxBytes,
        confirmable: false,
      });
    return (await readFile(file)).toString('utf8');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

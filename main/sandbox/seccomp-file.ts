import { createHash } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { buildSeccompProgram, encodeSeccompProgram, seccompSupported } from './seccomp';
import { createLogger } from '../log';

const log = createLogger('sandbox.seccomp');

/** The encoded program, computed once per process. */
let encoded: Buffer | null = null;
let written: Promise<string> | null = null;

/**
 * A file holding the seccomp program for bubblewrap to read (the shell that starts bwrap opens it as an fd). Written
 * once, read-only in a private folder (0700) of its own under the temp folder; made again should a cleaner remove it
 * while Kiln runs. Null where the filter does not apply (another architecture).
 */
export async function seccompProgramFile(): Promise<string | null> {
  if (!seccompSupported()) return null;
  if (written) {
    const file = await written.catch(
      log.caught('the seccomp program could not be written before; it is written again', null, 'warn'),
    );
    if (file && exists(file)) return file;
  }
  encoded ??= encodeSeccompProgram(buildSeccompProgram());
  written = writeProgram(encoded);
  return written;
}

/** Checked before every sandboxed run (a cleaner may have removed it): synchronous, one call on the temp folder. */
const exists = (file: string) => existsSync(file);

async function writeProgram(bytes: Buffer): Promise<string> {
  // mkdtemp: a fresh name no other user can have made beforehand.
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'kiln-seccomp-'));
  // Gone with this process (a crash leaves 600 bytes for the temp folder's cleaner).
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  await fs.chmod(dir, 0o700);
  const file = path.join(dir, `${createHash('sha256').update(bytes).digest('hex').slice(0, 16)}.bpf`);
  await fs.writeFile(file, bytes, { mode: 0o400 });
  return file;
}

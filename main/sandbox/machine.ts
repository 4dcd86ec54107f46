import { execFile } from 'node:child_process';
import * as fs from 'node:fs/promises';
import path from 'node:path';
import { findExecutable } from '../process';
import { isWithin, type SystemEntry } from './bwrap-args';
import { createLogger } from '../log';

const log = createLogger('sandbox.machine');
/** A path this machine does not have (or hides) is simply not bound into the sandbox. */
const absent = log.caught('a path the sandbox would bind or mask is not there (or unreadable); left out', null);

/** The system folders code sees, read-only (those that exist here). */
const SYSTEM_PATHS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc'];
/** Secrets under /etc the code must not read (a root caller could): shown empty. */
const SECRET_FILES = [
  '/etc/shadow',
  '/etc/shadow-',
  '/etc/gshadow',
  '/etc/gshadow-',
  '/etc/sudoers',
  '/etc/security/opasswd',
];
const SECRET_DIRS = [
  '/etc/ssh',
  '/etc/sudoers.d',
  '/etc/ssl/private',
  '/etc/NetworkManager/system-connections',
  '/etc/wireguard',
  '/etc/letsencrypt',
];

/**
 * What the sandbox masks of a workspace (ProtectedPaths.maskedEntries: a shown home's hidden entries, Kiln's data
 * folder), as bubblewrap mounts them: folders as an empty read-only tmpfs, files as /dev/null. Found by realpath, so
 * a link to a secret masks the secret itself; one that leads out of the workspace shows nothing there to mask. An
 * entry that is or holds another bound tree (the interpreter in `~/.pyenv`) is left, or the run could not start.
 */
export async function maskTargets(
  workspaceRoot: string,
  masked: readonly string[],
  keepTrees: readonly string[],
): Promise<{ files: string[]; dirs: string[] }> {
  const files = new Set<string>();
  const dirs = new Set<string>();
  for (const rel of masked) {
    const real = await fs.realpath(path.join(workspaceRoot, rel)).catch(absent);
    if (!real || !isWithin(real, workspaceRoot) || real === workspaceRoot) continue;
    if (keepTrees.some((tree) => isWithin(tree, real))) continue;
    const info = await fs.stat(real).catch(absent);
    if (info?.isDirectory()) dirs.add(real);
    else if (info) files.add(real);
  }
  return { files: [...files], dirs: [...dirs] };
}

export interface SandboxStatus {
  available: boolean;
  /** The bubblewrap found, or null. */
  bwrap: string | null;
  /** Why there is no sandbox (empty when there is one). */
  reason: string;
}

function run(
  file: string,
  args: string[],
  timeoutMs = 10_000,
): Promise<{ ok: boolean; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { timeout: timeoutMs, encoding: 'utf8' }, (err, stdout, stderr) =>
      resolve({ ok: !err, stdout, stderr }),
    );
  });
}

/**
 * Whether bubblewrap can make a sandbox here: Linux, `bwrap` found (KILN_BWRAP names another one, or `none`), and
 * a user and network namespace it can make (a kernel or policy without unprivileged user namespaces fails here).
 */
export async function probeSandbox(env: NodeJS.ProcessEnv = process.env): Promise<SandboxStatus> {
  if (process.platform !== 'linux')
    return { available: false, bwrap: null, reason: 'bubblewrap sandboxes exist on Linux only' };
  const named = env.KILN_BWRAP;
  if (named === 'none') return { available: false, bwrap: null, reason: 'KILN_BWRAP=none' };
  const bwrap = named
    ? await findExecutable(named, env.PATH)
    : ((await findExecutable('bwrap', env.PATH)) ?? (await findExecutable('/usr/bin/bwrap', undefined)));
  if (!bwrap)
    return { available: false, bwrap: null, reason: 'bubblewrap (bwrap) is not installed: apt-get install bubblewrap' };
  const probe = await run(bwrap, [
    '--unshare-user',
    '--unshare-pid',
    '--unshare-net',
    '--ro-bind',
    '/',
    '/',
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--',
    'true',
  ]);
  if (!probe.ok) {
    const why = probe.stderr.trim().split('\n')[0] || 'it failed';
    return {
      available: false,
      bwrap,
      reason: `bubblewrap cannot make a sandbox here (user namespaces off?): ${why}`,
    };
  }
  return { available: true, bwrap, reason: '' };
}

/** The system entries of this machine: folders to bind, and the usr-merge symlinks to recreate. */
export async function systemEntries(): Promise<SystemEntry[]> {
  const entries: SystemEntry[] = [];
  for (const entry of SYSTEM_PATHS) {
    const info = await fs.lstat(entry).catch(absent);
    if (!info) continue;
    if (info.isSymbolicLink()) entries.push({ path: entry, kind: 'symlink', target: await fs.readlink(entry) });
    else if (info.isDirectory()) entries.push({ path: entry, kind: 'dir' });
  }
  return entries;
}

export async function existingSecrets(): Promise<{ files: string[]; dirs: string[] }> {
  const kind = async (p: string) => {
    const info = await fs.lstat(p).catch(absent);
    return info?.isDirectory() ? 'dir' : info?.isFile() ? 'file' : null;
  };
  const files: string[] = [];
  const dirs: string[] = [];
  for (const file of SECRET_FILES) if ((await kind(file)) === 'file') files.push(file);
  for (const dir of SECRET_DIRS) if ((await kind(dir)) === 'dir') dirs.push(dir);
  return { files, dirs };
}

const PYTHON_PATHS = `import json, site, sys
print(json.dumps([sys.executable, sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix, site.getusersitepackages(), *sys.path]))`;

const pythonPathCache = new Map<string, Promise<string[]>>();

/**
 * The folders an interpreter needs that the system folders do not hold (a pyenv or conda build, a venv, the user's
 * site-packages), found by asking it once (isolated, so the host's PYTHONPATH adds nothing).
 */
export function interpreterPaths(python: string): Promise<string[]> {
  let found = pythonPathCache.get(python);
  if (!found) {
    found = findInterpreterPaths(python);
    pythonPathCache.set(python, found);
  }
  return found;
}

async function findInterpreterPaths(python: string): Promise<string[]> {
  const candidates = [path.dirname(python)];
  const real = await fs
    .realpath(python)
    .catch(log.caught('the interpreter is not a resolvable path (a bare name); its own folder is used', python));
  candidates.push(path.dirname(real));
  const answer = await run(python, ['-I', '-c', PYTHON_PATHS]);
  if (answer.ok) {
    try {
      const listed = JSON.parse(answer.stdout) as unknown;
      if (Array.isArray(listed)) candidates.push(...listed.filter((p): p is string => typeof p === 'string'));
    } catch {
      // expected: an interpreter that cannot answer still runs from its own folder.
    }
  }
  const dirs: string[] = [];
  for (const candidate of candidates) {
    if (!path.isAbsolute(candidate)) continue;
    // A venv's bin/python is a link into the system: its folder is what the code needs, not the link's target.
    const dir = (await fs.stat(candidate).catch(absent))?.isDirectory() ? candidate : path.dirname(candidate);
    if (SYSTEM_PATHS.some((system) => isWithin(dir, system))) continue;
    if (!(await fs.stat(dir).catch(absent))?.isDirectory()) continue;
    if (dirs.some((kept) => isWithin(dir, kept))) continue;
    dirs.splice(0, dirs.length, ...dirs.filter((kept) => !isWithin(kept, dir)), dir);
  }
  return dirs;
}

/** prlimit (util-linux), which sets the limits inside the sandbox. */
export async function findPrlimit(env: NodeJS.ProcessEnv = process.env): Promise<string | null> {
  return (await findExecutable('/usr/bin/prlimit', undefined)) ?? (await findExecutable('prlimit', env.PATH));
}

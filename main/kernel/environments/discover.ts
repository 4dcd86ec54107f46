import { execFile } from 'node:child_process';
import type { Dirent } from 'node:fs';
import * as fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { findExecutable } from '../../process';

/**
 * Finds Python environments without running any of them: a project's interpreter runs the project's code (a
 * `sitecustomize.py`, a `.pth` file), so everything here is read from disk: pyvenv.cfg, conda's metadata and
 * the site-packages folders. Only conda itself (the operator's own tool, on their PATH) is ever run.
 */

export interface FoundEnvironment {
  kind: 'venv' | 'conda';
  /** The environment's folder, absolute (not resolved: a venv knows itself by the path it is run from). */
  dir: string;
  /** Its interpreter, absolute, as the kernelspec names it (`<dir>/bin/python`, a symlink in a venv). */
  python: string;
  /** `3.11.2`, or `3.11` when only the lib folder's name says; null when nothing says. */
  version: string | null;
  hasIpykernel: boolean;
}

/** pyvenv.cfg's `key = value` lines (keys lower-cased; the last of a key wins, as in site.py). */
export function parsePyvenvCfg(text: string): Map<string, string> {
  const values = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const at = line.indexOf('=');
    if (at < 0) continue;
    values.set(line.slice(0, at).trim().toLowerCase(), line.slice(at + 1).trim());
  }
  return values;
}

async function isRegularFile(file: string): Promise<boolean> {
  return fs.lstat(file).then(
    (info) => info.isFile(),
    () => false,
  );
}

async function isRealDir(dir: string): Promise<boolean> {
  return fs.lstat(dir).then(
    (info) => info.isDirectory(),
    () => false,
  );
}

/** The interpreter of an environment folder, if it has one that resolves to a file (a venv's is a symlink). */
async function interpreterOf(dir: string): Promise<string | null> {
  const candidates =
    process.platform === 'win32'
      ? [path.join(dir, 'Scripts', 'python.exe'), path.join(dir, 'python.exe')]
      : [path.join(dir, 'bin', 'python'), path.join(dir, 'bin', 'python3')];
  for (const candidate of candidates) {
    // Resolving the interpreter is the one symlink followed: a venv's python points at its base.
    const ok = await fs.stat(candidate).then(
      (info) => info.isFile(),
      () => false,
    );
    if (ok) return candidate;
  }
  return null;
}

/** `python3.11` folders under `<prefix>/lib` (real folders only), newest first. */
async function libPythonFolders(prefix: string): Promise<string[]> {
  const lib = path.join(prefix, 'lib');
  // expected: no lib folder (or an unreadable one) means no Python version to read here
  const entries = await fs.readdir(lib, { withFileTypes: true }).catch(() => [] as Dirent[]);
  return entries
    .filter((e) => e.isDirectory() && /^python\d+\.\d+t?$/.test(e.name))
    .map((e) => e.name)
    .sort()
    .reverse();
}

const majorMinor = (version: string | null): string | null => /^(\d+\.\d+)/.exec(version ?? '')?.[1] ?? null;

/** Whether any of these site-packages folders holds the ipykernel package. */
export async function hasIpykernelIn(sitePackages: readonly string[]): Promise<boolean> {
  for (const dir of sitePackages) {
    if (await isRegularFile(path.join(dir, 'ipykernel', '__init__.py'))) return true;
  }
  return false;
}

/**
 * Where the base interpreter of a `--system-site-packages` venv keeps its packages: `home` is the base's bin
 * folder, its parent the base prefix. Debian's python3 keeps them in dist-packages (python3-ipykernel is in
 * /usr/lib/python3/dist-packages), others in site-packages; the user's own site-packages is on the path too.
 */
export function baseSitePackages(home: string, version: string | null, userHome: string): string[] {
  const prefix = path.dirname(home);
  const mm = majorMinor(version);
  const dirs = [path.join(prefix, 'lib', 'python3', 'dist-packages')];
  if (mm) {
    const lib = `python${mm}`;
    dirs.unshift(
      path.join(prefix, 'lib', lib, 'site-packages'),
      path.join(prefix, 'local', 'lib', lib, 'dist-packages'),
      path.join(prefix, 'lib', lib, 'dist-packages'),
      path.join(userHome, '.local', 'lib', lib, 'site-packages'),
    );
  }
  return dirs;
}

/** A venv folder (one holding pyvenv.cfg as a regular file), read from disk; null when it is not one or has no interpreter. */
export async function readVenv(dir: string, userHome: string): Promise<FoundEnvironment | null> {
  const cfgFile = path.join(dir, 'pyvenv.cfg');
  if (!(await isRegularFile(cfgFile))) return null;
  // expected: pyvenv.cfg was a regular file a moment ago; unreadable now, the venv is listed without its version
  const cfg = parsePyvenvCfg(await fs.readFile(cfgFile, 'utf8').catch(() => ''));
  const python = await interpreterOf(dir);
  if (!python) return null;
  const libs = await libPythonFolders(dir);
  // `version` (venv), `version_info` (uv, virtualenv); else the lib folder's name.
  const version = cfg.get('version') || cfg.get('version_info') || (libs[0]?.replace(/^python/, '') ?? null);
  const own =
    process.platform === 'win32'
      ? [path.join(dir, 'Lib', 'site-packages')]
      : libs.map((lib) => path.join(dir, 'lib', lib, 'site-packages'));
  const home = cfg.get('home');
  const inheritsBase = cfg.get('include-system-site-packages')?.toLowerCase() === 'true' && home;
  const sitePackages = inheritsBase ? [...own, ...baseSitePackages(home, version, userHome)] : own;
  return { kind: 'venv', dir, python, version: version || null, hasIpykernel: await hasIpykernelIn(sitePackages) };
}

/** A conda environment's folder (it has conda-meta/), read from disk; null when it is not one or has no interpreter. */
export async function readCondaEnv(dir: string): Promise<FoundEnvironment | null> {
  const meta = path.join(dir, 'conda-meta');
  if (!(await isRealDir(meta))) return null;
  const python = await interpreterOf(dir);
  if (!python) return null;
  // conda records each installed package as `<name>-<version>-<build>.json`.
  // expected: an unreadable conda-meta lists the environment without its version
  const records = await fs.readdir(meta).catch(() => [] as string[]);
  const pythonRecord = records.map((name) => /^python-(\d+\.\d+(?:\.\d+)?)-[^-]+\.json$/.exec(name)).find(Boolean);
  const libs = await libPythonFolders(dir);
  const version = pythonRecord?.[1] ?? libs[0]?.replace(/^python/, '') ?? null;
  const sitePackages =
    process.platform === 'win32'
      ? [path.join(dir, 'Lib', 'site-packages')]
      : libs.map((lib) => path.join(dir, 'lib', lib, 'site-packages'));
  return { kind: 'conda', dir, python, version, hasIpykernel: await hasIpykernelIn(sitePackages) };
}

/**
 * The environments directly in the workspace: any real folder (a symlink is not followed) one level down that
 * holds pyvenv.cfg (`.venv`, `venv`, `env`, whatever its name) or conda-meta/ (`conda create -p ./env`).
 * Never deeper: a project's tree is not walked for them.
 */
export async function findWorkspaceEnvironments(root: string, userHome = os.homedir()): Promise<FoundEnvironment[]> {
  const entries = await fs.readdir(root, { withFileTypes: true }).catch((err: unknown) => {
    console.warn('[kiln] could not list the workspace for Python environments (none offered from it)', err);
    return [] as Dirent[];
  });
  const found: FoundEnvironment[] = [];
  for (const entry of entries) {
    if (!entry.isDirectory()) continue;
    const dir = path.join(root, entry.name);
    const env = (await readVenv(dir, userHome)) ?? (await readCondaEnv(dir));
    if (env) found.push(env);
  }
  return found.sort((a, b) => a.dir.localeCompare(b.dir));
}

/** conda's list of environments: `conda env list --json` when conda is on PATH, else ~/.conda/environments.txt. */
export async function condaEnvironmentDirs(env: NodeJS.ProcessEnv, userHome = os.homedir()): Promise<string[]> {
  const conda = await findExecutable('conda', env.PATH);
  if (conda) {
    const listed = await new Promise<string[] | null>((resolve) => {
      execFile(conda, ['env', 'list', '--json'], { env, timeout: 20_000 }, (err, stdout) => {
        if (err) {
          console.warn('[kiln] `conda env list --json` failed; reading ~/.conda/environments.txt instead', err.message);
          resolve(null);
          return;
        }
        try {
          const parsed = JSON.parse(stdout) as { envs?: unknown };
          resolve(Array.isArray(parsed.envs) ? parsed.envs.filter((e): e is string => typeof e === 'string') : []);
        } catch {
          console.warn('[kiln] `conda env list --json` printed no JSON; reading ~/.conda/environments.txt instead');
          resolve(null);
        }
      });
    });
    if (listed) return listed;
  }
  // expected: most operators have no conda: no environments.txt means no conda environments
  const text = await fs.readFile(path.join(userHome, '.conda', 'environments.txt'), 'utf8').catch(() => '');
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#') && path.isAbsolute(line));
}

/** The conda environments that exist and have an interpreter, read from disk. */
export async function findCondaEnvironments(
  env: NodeJS.ProcessEnv,
  userHome = os.homedir(),
): Promise<FoundEnvironment[]> {
  const dirs = [...new Set(await condaEnvironmentDirs(env, userHome))];
  const found: FoundEnvironment[] = [];
  for (const dir of dirs) {
    const conda = await readCondaEnv(dir);
    if (conda) found.push(conda);
  }
  return found;
}

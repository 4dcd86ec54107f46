import { execFile } from 'node:child_process';
import * as fs from 'node:fs/promises';
import path from 'node:path';
import { findExecutable } from '../process';
import type { JupyterCommand } from './discovery';

/**
 * Kiln's private kernelspecs. Jupyter's own `python3` kernelspec runs `python3 -m ipykernel_launcher` in the
 * notebook's folder, and `-m` looks in the current folder first: a file `ipykernel_launcher.py` (or a package
 * `ipykernel/`) beside a notebook would run as the operator. Kiln's embedded server instead finds its kernelspecs
 * first in its private data dir, where every Python kernelspec starts a launcher script by absolute path, with
 * an absolute interpreter and `-P` where Python has it (3.11+). The launcher takes the notebook's folder off
 * sys.path while ipykernel loads, then puts it back (as `''`, where IPython puts it) so `import mymodule`
 * beside the notebook works as Jupyter users expect.
 */

export const KERNEL_LAUNCHER_FILE = 'kiln_kernel_launcher.py';

/** The launcher script: nothing resolving to the notebook's folder (the working directory) is on sys.path while ipykernel imports. */
export function kernelLauncherSource(): string {
  return String.raw`# Written by Kiln: starts ipykernel without resolving anything from the notebook's folder.
import os
import sys


def _kiln_unsafe(entry, here, cwd):
    if entry in ("", "."):
        return True
    try:
        real = os.path.realpath(entry)
    except Exception:
        return False
    return real in (here, cwd)


_here = os.path.realpath(os.path.dirname(os.path.abspath(__file__)))
_cwd = os.path.realpath(os.getcwd())
sys.path[:] = [p for p in sys.path if not _kiln_unsafe(p, _here, _cwd)]

from ipykernel import kernelapp as _kiln_app  # noqa: E402

# The notebook's folder, importable as in Jupyter: '' (it follows %cd), after the standard library, before
# site-packages, as IPython's init_path puts it (which then leaves it alone).
if "" not in sys.path:
    _at = next((i for i, p in enumerate(sys.path) if "site-packages" in p or "dist-packages" in p), len(sys.path))
    sys.path.insert(_at, "")

del os, _kiln_unsafe, _here, _cwd
_kiln_app.launch_new_instance()
`;
}

/** The Python the `jupyter` command runs on: the command itself when it is a Python, else its launcher's shebang. */
export async function jupyterInterpreter(command: JupyterCommand, env: NodeJS.ProcessEnv): Promise<string | null> {
  const program = command.argv[0];
  if (/python[\d.]*$/.test(path.basename(program))) return program;
  const head = await fs.readFile(program, 'utf8').then(
    (text) => text.slice(0, 256),
    () => '',
  );
  const shebang = /^#!\s*(\/\S*python[\d.]*)\s*$/.exec(head.split('\n')[0] ?? '');
  if (shebang) return shebang[1];
  // `#!/usr/bin/env python3` and the like: the python3 that env would find.
  return (await findExecutable('python3', env.PATH)) ?? null;
}

const versionCache = new Map<string, Promise<[number, number] | null>>();

/** The interpreter's major and minor version, asked once (isolated, from Kiln's private folder); null if it does not answer. */
function pythonVersion(python: string, cwd: string): Promise<[number, number] | null> {
  let found = versionCache.get(python);
  if (!found) {
    found = new Promise((resolve) => {
      execFile(
        python,
        ['-I', '-c', 'import sys; print(sys.version_info[0], sys.version_info[1])'],
        { cwd, timeout: 10_000 },
        (err, stdout) => {
          const match = /^(\d+) (\d+)/.exec(stdout ?? '');
          resolve(err || !match ? null : [Number(match[1]), Number(match[2])]);
        },
      );
    });
    versionCache.set(python, found);
  }
  return found;
}

interface KernelJson {
  argv?: unknown;
  display_name?: unknown;
  language?: unknown;
  [key: string]: unknown;
}

const IPYKERNEL_MODULES = new Set(['ipykernel_launcher', 'ipykernel']);

/**
 * A Python kernelspec's argv with `-m ipykernel_launcher` replaced by Kiln's launcher; null when the argv does
 * not start ipykernel that way (another language, a custom launcher): such a spec is left as it is.
 */
export function wrappedArgv(
  argv: string[],
  options: { python: (program: string) => string | null; launcher: string; safePath: (python: string) => boolean },
): string[] | null {
  const m = argv.indexOf('-m');
  if (m < 1 || !IPYKERNEL_MODULES.has(argv[m + 1] ?? '')) return null;
  const python = options.python(argv[0]);
  if (!python) return null;
  const interpreterOptions = argv.slice(1, m).filter((option) => option !== '-P');
  return [
    python,
    ...interpreterOptions,
    ...(options.safePath(python) ? ['-P'] : []),
    options.launcher,
    ...argv.slice(m + 2),
  ];
}

/** Where Jupyter would find kernelspecs for this server besides Kiln's data dir (JUPYTER_PATH, then system folders). */
export function kernelspecSearchDirs(jupyterPath: string | undefined, interpreter: string | null): string[] {
  const dirs = (jupyterPath ?? '').split(path.delimiter).filter(Boolean);
  if (interpreter) dirs.push(path.join(path.dirname(path.dirname(interpreter)), 'share', 'jupyter'));
  if (process.platform !== 'win32') dirs.push('/usr/local/share/jupyter', '/usr/share/jupyter');
  return dirs.map((dir) => path.join(dir, 'kernels'));
}

export interface PrivateKernelspecsOptions {
  /** The server's private folder: the launcher goes here, the kernelspecs under data/kernels. */
  privateDir: string;
  /** The `jupyter` command the server runs with. */
  command: JupyterCommand;
  /** The server's environment (JUPYTER_PATH names the operator's kernelspec folders). */
  env: NodeJS.ProcessEnv;
}

/**
 * Writes the launcher and Kiln's kernelspecs: a wrapped copy of every ipykernel kernelspec found through
 * JUPYTER_PATH and the system folders (the first found of a name wins, as in Jupyter), and `python3` for the Python
 * Jupyter runs on when none of them has one. The server's JUPYTER_PATH starts with Kiln's data dir, so these
 * shadow the originals. Returns the names written.
 */
export async function writePrivateKernelspecs(options: PrivateKernelspecsOptions): Promise<string[]> {
  const { privateDir, env } = options;
  const launcher = path.join(privateDir, KERNEL_LAUNCHER_FILE);
  await fs.writeFile(launcher, kernelLauncherSource());
  const kernelsDir = path.join(privateDir, 'data', 'kernels');
  // Written afresh for each server start: the command (and so the interpreter) may have changed.
  await fs.rm(kernelsDir, { recursive: true, force: true });
  await fs.mkdir(kernelsDir, { recursive: true });

  const interpreter = await jupyterInterpreter(options.command, env);
  const resolved = new Map<string, string | null>();
  const resolve = async (program: string): Promise<string | null> => {
    if (!resolved.has(program)) {
      // jupyter_client runs a bare `python`/`python3` as the server's own interpreter; others come from PATH.
      const found = path.isAbsolute(program)
        ? program
        : /^python[\d.]*$/.test(program) && interpreter
          ? interpreter
          : ((await findExecutable(program, env.PATH)) ?? null);
      resolved.set(program, found);
    }
    return resolved.get(program) ?? null;
  };
  const safe = new Map<string, boolean>();
  const knowSafePath = async (python: string) => {
    if (!safe.has(python)) {
      const version = await pythonVersion(python, privateDir);
      safe.set(python, version !== null && (version[0] > 3 || (version[0] === 3 && version[1] >= 11)));
    }
  };

  const written: string[] = [];
  const write = async (name: string, spec: KernelJson, resourcesFrom: string | null) => {
    const target = path.join(kernelsDir, name);
    if (resourcesFrom) {
      // Logos and the like go with the spec; links are copied as files, never followed later.
      await fs.cp(resourcesFrom, target, { recursive: true, dereference: true }).catch((err: unknown) => {
        console.warn(`[kiln] could not copy kernelspec ${name}'s files (it still runs, without its logo)`, err);
      });
    }
    await fs.mkdir(target, { recursive: true });
    await fs.writeFile(path.join(target, 'kernel.json'), `${JSON.stringify(spec, null, 1)}\n`);
    written.push(name);
  };

  const seen = new Set<string>();
  for (const dir of kernelspecSearchDirs(env.JUPYTER_PATH, interpreter)) {
    // expected: most of Jupyter's search folders do not exist on a given machine
    const names = await fs.readdir(dir).catch(() => [] as string[]);
    for (const name of names.sort()) {
      if (seen.has(name)) continue;
      const source = path.join(dir, name);
      let spec: KernelJson;
      try {
        spec = JSON.parse(await fs.readFile(path.join(source, 'kernel.json'), 'utf8')) as KernelJson;
      } catch {
        continue; // Not a kernelspec (or unreadable): Jupyter skips it too.
      }
      seen.add(name);
      if (!Array.isArray(spec.argv) || !spec.argv.every((a): a is string => typeof a === 'string')) continue;
      const python = await resolve(spec.argv[0]);
      if (python) await knowSafePath(python);
      const argv = wrappedArgv(spec.argv, {
        python: () => python,
        launcher,
        safePath: (p) => safe.get(p) ?? false,
      });
      // Not an ipykernel spec: Jupyter finds it where it is and runs it as it says.
      if (!argv) continue;
      await write(name, { ...spec, argv }, source);
    }
  }
  // Jupyter's native kernel when no folder has a `python3`: the Python Jupyter itself runs on.
  if (interpreter && !seen.has('python3')) {
    await knowSafePath(interpreter);
    await write(
      'python3',
      {
        argv: [interpreter, ...(safe.get(interpreter) ? ['-P'] : []), launcher, '-f', '{connection_file}'],
        display_name: 'Python 3 (ipykernel)',
        language: 'python',
        metadata: { debugger: true },
      },
      null,
    );
  }

  return written;
}

import * as fs from 'node:fs/promises';
import path from 'node:path';
import { KilnError } from '../../shared/errors';
import { findExecutable } from '../process';
import { findJupyter, JUPYTER_INSTALL_HINT } from '../kernel';
import { createLogger } from '../log';

const log = createLogger('verbs.python');

/** An existing executable file (findExecutable checks a path with a slash as is, PATH unused). */
async function isExecutable(file: string): Promise<boolean> {
  return (await findExecutable(file, undefined)) !== null;
}

/** The interpreter named by a script's `#!` line: `{ program, viaEnv }`, or null when there is none. */
async function readShebang(file: string): Promise<{ program: string; viaEnv: boolean } | null> {
  let head: string;
  try {
    const handle = await fs.open(file, 'r');
    try {
      const buffer = Buffer.alloc(512);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
      head = buffer.subarray(0, bytesRead).toString('utf8');
    } finally {
      await handle.close();
    }
  } catch {
    return null;
  }
  if (!head.startsWith('#!')) return null;
  const words = head.slice(2).split('\n')[0].trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return null;
  if (path.basename(words[0]) === 'env') {
    const program = words.slice(1).find((word) => !word.startsWith('-') && !word.includes('='));
    return program ? { program, viaEnv: true } : null;
  }
  return { program: words[0], viaEnv: false };
}

/**
 * The Python the notebook kernels use: the interpreter Jupyter itself runs on. Not the first `python3` on
 * PATH, which is often another interpreter (pyenv, a venv) without the operator's kernel packages.
 * Order: the `#!` interpreter of the `jupyter` script, a python next to it, /usr/bin/python3, python3 on PATH.
 */
export async function findKernelPython(
  options: { jupyterCommand?: string[]; env?: NodeJS.ProcessEnv } = {},
): Promise<string> {
  const env = options.env ?? process.env;
  const jupyter = await findJupyter({ command: options.jupyterCommand, env }).then(
    (found) => found.argv[0],
    () => null,
  );
  if (jupyter) {
    const shebang = await readShebang(jupyter);
    if (shebang && !shebang.viaEnv && path.isAbsolute(shebang.program) && (await isExecutable(shebang.program))) {
      return shebang.program;
    }
    const dir = path.dirname(
      await fs
        .realpath(jupyter)
        .catch(
          log.caught('the jupyter command is not a resolvable path (a bare name); its own folder is searched', jupyter),
        ),
    );
    for (const name of ['python3', 'python']) {
      const sibling = path.join(dir, name);
      if (await isExecutable(sibling)) return sibling;
    }
    if (shebang?.viaEnv) {
      const found = await findExecutable(shebang.program, env.PATH);
      if (found) return found;
    }
  }
  if (await isExecutable('/usr/bin/python3')) return '/usr/bin/python3';
  const onPath = await findExecutable('python3', env.PATH);
  if (onPath) return onPath;
  throw new KilnError('E_NO_JUPYTER', `No Python interpreter found to run code in. ${JUPYTER_INSTALL_HINT}`);
}

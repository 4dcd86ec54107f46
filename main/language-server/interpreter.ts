import { readFile } from 'node:fs/promises';
import { findExecutable } from '../process';

/**
 * The Python that Kiln's notebooks run with, so the server reads the same site-packages: the interpreter of the
 * `jupyter` launcher (its shebang), which is the one its default `python3` kernel runs. Falls back to `python3` on
 * PATH. Only read here, never run by Kiln (pyright asks it for its search paths).
 */
export async function findNotebookInterpreter(env: NodeJS.ProcessEnv = process.env): Promise<string | null> {
  const jupyter = await findExecutable('jupyter', env.PATH);
  if (jupyter) {
    const head = await readFile(jupyter, 'utf8').then(
      (text) => text.slice(0, 256),
      () => '',
    );
    const shebang = /^#!\s*(\S+python[\d.]*)\s*$/m.exec(head.split('\n')[0] ?? '');
    if (shebang) return shebang[1];
  }
  return (await findExecutable('python3', env.PATH)) ?? null;
}

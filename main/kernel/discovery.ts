import path from 'node:path';
import { KilnError } from '../../shared/errors';
import { findExecutable } from '../process';

/** What to tell an operator who has no usable Jupyter. */
export const JUPYTER_INSTALL_HINT =
  'Install Jupyter (on Debian/Ubuntu: apt-get install jupyter-server jupyter-core jupyter-client python3-ipykernel; ' +
  'elsewhere: pip install jupyter-server ipykernel), or set a Jupyter command or a remote Jupyter server URL and token in the settings.';

/** The command that runs `jupyter`; Kiln appends `server ...` to it. */
export interface JupyterCommand {
  argv: string[];
  source: 'configured' | 'path';
}

/**
 * Finds Jupyter the way the operator has it: the configured command first, then `jupyter` on PATH.
 * Never `python3 -m jupyter`: the first python3 on PATH is often a different interpreter (pyenv, venv)
 * than the one Jupyter is installed for.
 */
export async function findJupyter(options: { command?: string[]; env?: NodeJS.ProcessEnv }): Promise<JupyterCommand> {
  const envPath = (options.env ?? process.env).PATH;
  if (options.command && options.command.length > 0) {
    const [program, ...rest] = options.command;
    const found = await findExecutable(program, envPath);
    if (!found) {
      throw new KilnError(
        'E_NO_JUPYTER',
        `The configured Jupyter command "${options.command.join(' ')}" was not found. ${JUPYTER_INSTALL_HINT}`,
      );
    }
    return { argv: [found, ...rest], source: 'configured' };
  }
  const jupyter = await findExecutable('jupyter', envPath);
  if (!jupyter) throw new KilnError('E_NO_JUPYTER', `No Jupyter found on PATH. ${JUPYTER_INSTALL_HINT}`);
  return { argv: [jupyter], source: 'path' };
}

/** Where Jupyter keeps per-user data (kernelspecs of the operator's environments), read-only for Kiln's server. */
export function userJupyterDataDir(env: NodeJS.ProcessEnv, home: string): string {
  if (process.platform === 'darwin') return path.join(home, 'Library', 'Jupyter');
  if (process.platform === 'win32') return path.join(env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), 'jupyter');
  return path.join(env.XDG_DATA_HOME || path.join(home, '.local', 'share'), 'jupyter');
}

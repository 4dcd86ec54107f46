import * as fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { userJupyterDataDir } from './discovery';
import { KERNEL_LAUNCHER_FILE } from './kernelspecs';
import { serverConfigSource } from './server-config';
import type { JupyterServerOptions, OwnKernelspecs } from './server-types';

export function ownKernelspecsIn(privateDir: string): OwnKernelspecs {
  return {
    kernelsDir: path.join(privateDir, 'data', 'kernels'),
    launcher: path.join(privateDir, KERNEL_LAUNCHER_FILE),
  };
}

const TOKEN_FILE = 'token';

/**
 * Makes the embedded server's private folder (config, data, runtime, IPython dirs, its config file and its token
 * file) in `options.stateDir` (the OS temp folder by default).
 */
export async function makePrivateDir(options: JupyterServerOptions, token: string): Promise<string> {
  const parent = options.stateDir ?? os.tmpdir();
  await fs.mkdir(parent, { recursive: true });
  const dir = await fs.mkdtemp(path.join(parent, 'kiln-jupyter-'));
  for (const sub of ['config', 'data', 'runtime', 'ipython']) await fs.mkdir(path.join(dir, sub), { recursive: true });
  await fs.writeFile(path.join(dir, 'kiln_server_config.py'), serverConfigSource());
  // The token never goes on the command line (/proc/*/cmdline is world-readable): the config reads it from
  // this owner-only file, in a folder only the owner can enter (mkdtemp makes it 0700).
  await fs.writeFile(path.join(dir, TOKEN_FILE), token, { mode: 0o600 });
  return dir;
}

/** The operator's own Jupyter data folders (kernelspecs of conda envs, venvs): their user folder and JUPYTER_PATH. */
export function operatorJupyterPath(options: JupyterServerOptions): string {
  const env = options.env ?? process.env;
  const userData = userJupyterDataDir(env, env.HOME ?? os.homedir());
  return [userData, env.JUPYTER_PATH].filter(Boolean).join(path.delimiter);
}

/** The embedded server's environment: Jupyter's folders in its private folder `dir`. */
export function serverEnv(options: JupyterServerOptions, dir: string): NodeJS.ProcessEnv {
  const env = { ...(options.env ?? process.env) };
  return {
    ...env,
    JUPYTER_CONFIG_DIR: path.join(dir, 'config'),
    JUPYTER_DATA_DIR: path.join(dir, 'data'),
    JUPYTER_RUNTIME_DIR: path.join(dir, 'runtime'),
    IPYTHONDIR: path.join(dir, 'ipython'),
    // The operator's kernelspecs stay visible, read-only; Kiln's data dir goes first (JUPYTER_PATH outranks
    // JUPYTER_DATA_DIR), so its wrapped copies of them (kernelspecs.ts) are the ones that run.
    JUPYTER_PATH: [path.join(dir, 'data'), operatorJupyterPath(options)].filter(Boolean).join(path.delimiter),
    KILN_PARENT_PID: String(process.pid),
    KILN_JUPYTER_TOKEN_FILE: path.join(dir, TOKEN_FILE),
    // debugpy's warning about frozen modules would otherwise land in every kernel's stderr.
    PYDEVD_DISABLE_FILE_VALIDATION: '1',
  };
}

import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { killStragglers } from '../main/process';
import { freePort } from './free-port';
import { makeTempDir } from './temp-workspace';

/** Debian's Jupyter (the first python3 on PATH may be one without it). */
const JUPYTER = '/usr/bin/jupyter';

export interface RemoteJupyterServer {
  url: string;
  token: string;
  port: number;
  /** The server's process group id (it is started in a session of its own). */
  pid(): number;
  /** SIGKILL to the server's process group, as a crash or a lost machine would end it; its kernels linger. */
  kill(): Promise<void>;
  /** Freezes (SIGSTOP) or thaws (SIGCONT) the server: it stops answering but keeps its kernels. */
  pause(): void;
  resume(): void;
  /** Starts a fresh server on the same port and token (it knows no kernel of the old one). */
  restart(): Promise<void>;
  /** Stops the server and every kernel it started, and removes its folders. */
  close(): Promise<void>;
}

async function answers(url: string, token: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}api/status`, {
      headers: { Authorization: `token ${token}` },
      signal: AbortSignal.timeout(2000),
    });
    return res.ok;
  } catch {
    return false;
  }
}

/**
 * A second, real `jupyter server` on a free loopback port, as a remote server the config's `jupyter.url` names:
 * a token, private config/data/runtime/IPython folders in a temp folder, `rootDir` as its root. The private
 * folder is on every kernel's command line (its connection file), so `close` finds kernels a kill left behind.
 */
export async function startRemoteJupyter(
  rootDir: string,
  options: { token?: string } = {},
): Promise<RemoteJupyterServer> {
  const { dir, cleanup } = await makeTempDir('kiln-remote-jupyter-');
  for (const sub of ['config', 'data', 'runtime', 'ipython']) await mkdir(path.join(dir, sub), { recursive: true });
  const token = options.token ?? randomBytes(16).toString('hex');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  let child: ChildProcess | null = null;

  const spawnServer = async () => {
    const started = spawn(
      JUPYTER,
      [
        'server',
        '--ServerApp.ip=127.0.0.1',
        `--ServerApp.port=${port}`,
        '--ServerApp.port_retries=0',
        `--ServerApp.root_dir=${rootDir}`,
        '--ServerApp.open_browser=False',
        // jupyter_server 1.x (Debian 12) takes the token here; 2.x still accepts it.
        `--ServerApp.token=${token}`,
        ...(process.getuid?.() === 0 ? ['--ServerApp.allow_root=True'] : []),
      ],
      {
        cwd: rootDir,
        env: {
          ...process.env,
          JUPYTER_CONFIG_DIR: path.join(dir, 'config'),
          JUPYTER_DATA_DIR: path.join(dir, 'data'),
          JUPYTER_RUNTIME_DIR: path.join(dir, 'runtime'),
          IPYTHONDIR: path.join(dir, 'ipython'),
          PYDEVD_DISABLE_FILE_VALIDATION: '1',
        },
        detached: true,
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    child = started;
    let log = '';
    started.stderr!.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-4000)));
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      if (started.exitCode !== null || started.signalCode !== null)
        throw new Error(`jupyter server exited with ${started.exitCode ?? started.signalCode}: ${log}`);
      if (await answers(url, token)) return;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`jupyter server did not answer at ${url} within 60 s: ${log}`);
  };

  const killGroup = async () => {
    const current = child;
    if (!current?.pid) return;
    const exited = new Promise((resolve) =>
      current.exitCode !== null || current.signalCode !== null ? resolve(null) : current.once('exit', resolve),
    );
    try {
      process.kill(-current.pid, 'SIGCONT');
      process.kill(-current.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
    await exited;
  };

  await spawnServer();
  return {
    url,
    token,
    port,
    pid: () => child!.pid!,
    kill: killGroup,
    pause: () => process.kill(-child!.pid!, 'SIGSTOP'),
    resume: () => process.kill(-child!.pid!, 'SIGCONT'),
    async restart() {
      await killGroup();
      await spawnServer();
    },
    async close() {
      await killGroup();
      await killStragglers(dir);
      await rm(dir, { recursive: true, force: true });
      await cleanup();
    },
  };
}

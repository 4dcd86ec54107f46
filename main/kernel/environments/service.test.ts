import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { makeTempDir } from '../../../test-support/temp-workspace';
import { JupyterServerManager } from '../jupyter-server';
import { KernelEnvironments, REMOTE_ENVIRONMENTS_NOTE } from './service';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

it('offers no environment with a remote Jupyter server (it starts kernels from its own kernelspecs), and refuses one', async () => {
  const root = await makeTempDir('kiln-envs-remote-');
  const data = await makeTempDir('kiln-envs-remote-data-');
  cleanups.push(root.cleanup, data.cleanup);
  await mkdir(path.join(root.dir, '.venv', 'bin'), { recursive: true });
  await writeFile(path.join(root.dir, '.venv', 'pyvenv.cfg'), 'version = 3.11.2\n');
  // Never started: nothing here talks to the URL.
  const jupyter = new JupyterServerManager({ rootDir: root.dir, remote: { url: 'http://127.0.0.1:9/', token: 't' } });
  const environments = new KernelEnvironments({ root: root.dir, dataDir: data.dir, trusted: () => true, jupyter });
  try {
    expect(await environments.list()).toEqual({ offered: false, note: REMOTE_ENVIRONMENTS_NOTE, environments: [] });
    await expect(environments.prepare('kiln-env-0123456789ab')).rejects.toMatchObject({ code: 'E_BAD_REQUEST' });
  } finally {
    environments.dispose();
    await jupyter.dispose();
  }
});

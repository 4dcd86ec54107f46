/**
 * Environments a kernel can run in, against real venvs made here with Debian's python3 (which has ipykernel from
 * python3-ipykernel, so a --system-site-packages venv sees it), a real Jupyter server and a real kernel.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventPayload, KernelEnvironmentList } from '../../shared/contract';
import { MemoryStore } from '../../main/prefs';
import { dispatch } from '../../main/router';
import { createServices, type Services } from '../../main/services';
import { trustFolder } from '../../main/trust';
import { makeTempTree } from '../../test-support/temp-workspace';
import { until } from '../../test-support/until';

const run = promisify(execFile);
const SYSTEM_PYTHON = '/usr/bin/python3';

/** A venv as `python -m venv` makes it (without pip: ensurepip takes seconds and changes nothing looked at here). */
const makeVenv = (dir: string, systemSitePackages: boolean) =>
  run(SYSTEM_PYTHON, ['-m', 'venv', '--without-pip', ...(systemSitePackages ? ['--system-site-packages'] : []), dir]);

const notebook = JSON.stringify({
  nbformat: 4,
  nbformat_minor: 5,
  metadata: { kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' } },
  cells: [{ id: 'c0', cell_type: 'code', source: 'import sys\nprint(sys.executable)', metadata: {}, outputs: [] }].map(
    (cell) => ({ ...cell, execution_count: null }),
  ),
});

interface Opened {
  services: Services;
  call: (channel: string, args?: unknown) => Promise<unknown>;
  events: EventPayload<'kernelEnvironments.changed'>[];
}

async function open(root: string, dataDir: string): Promise<Opened> {
  const services = await createServices({ root, dataDir, prefsStore: new MemoryStore(), trash: async () => false });
  const events: Opened['events'] = [];
  services.hub.onEvent((event) => {
    if (event.channel === 'kernelEnvironments.changed') events.push(event.payload);
  });
  const call = async (channel: string, args: unknown = {}) => {
    const reply = await dispatch(services.handlers, channel, args);
    if (!reply.ok) throw Object.assign(new Error(`${channel}: ${reply.error.message}`), { code: reply.error.code });
    return reply.value;
  };
  return { services, call, events };
}

const printed = (result: unknown) =>
  (result as { outputs: { text?: string | string[] }[] }).outputs
    .map((o) => (Array.isArray(o.text) ? o.text.join('') : (o.text ?? '')))
    .join('')
    .trim();

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

describe('a trusted workspace', () => {
  let root: string;
  let dataDir: string;

  beforeAll(async () => {
    let cleanup: () => Promise<void>;
    ({ root, cleanup } = await makeTempTree({ 'nb.ipynb': notebook, 'src/.keep': '' }));
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'kiln-envs-data-'));
    cleanups.push(cleanup, () => rm(dataDir, { recursive: true, force: true }));
    await makeVenv(path.join(root, '.venv'), true);
    await makeVenv(path.join(root, 'plain'), false);
    await trustFolder(dataDir, root);
  }, 60_000);

  it('lists the venvs with their Python version, and ipykernel only where it is importable', async () => {
    const { services, call } = await open(root, dataDir);
    try {
      const list = (await call('kernelEnvironments.list')) as KernelEnvironmentList;
      expect(list.offered).toBe(true);
      const [version] = (await run(SYSTEM_PYTHON, ['-c', 'import platform; print(platform.python_version())'])).stdout
        .trim()
        .split('\n');
      const venv = list.environments.find((e) => e.path === '.venv');
      expect(venv).toMatchObject({
        kind: 'venv',
        inWorkspace: true,
        pythonVersion: version,
        hasIpykernel: true,
        installCommand: null,
        displayName: `Python ${version} (.venv)`,
      });
      // No system site-packages: ipykernel (Debian's, in /usr/lib/python3/dist-packages) is not seen from it.
      expect(list.environments.find((e) => e.path === 'plain')).toMatchObject({
        hasIpykernel: false,
        installCommand: `${path.join(root, 'plain', 'bin', 'python')} -m pip install ipykernel`,
      });
      // The one without ipykernel cannot be picked; the refusal says how to install it.
      const plainId = list.environments.find((e) => e.path === 'plain')!.id;
      await expect(call('notebook.setEnvironment', { path: 'nb.ipynb', id: plainId })).rejects.toMatchObject({
        code: 'E_BAD_REQUEST',
        message: expect.stringContaining('-m pip install ipykernel'),
      });
    } finally {
      await services.dispose();
    }
  }, 60_000);

  it("picking the venv runs the notebook's kernel on its python, from a kernelspec in Kiln's private folder; reopened, the notebook finds it again", async () => {
    const venvPython = path.join(root, '.venv', 'bin', 'python');
    let opened = await open(root, dataDir);
    let id: string;
    try {
      const { call } = opened;
      await call('notebook.open', { path: 'nb.ipynb' });
      const list = (await call('kernelEnvironments.list')) as KernelEnvironmentList;
      id = list.environments.find((e) => e.path === '.venv')!.id;
      const kernel = (await call('notebook.setEnvironment', { path: 'nb.ipynb', id })) as { name: string };
      expect(kernel.name).toBe(id);
      expect(printed(await call('notebook.runCell', { path: 'nb.ipynb', cellId: 'c0' }))).toBe(venvPython);
      // Jupyter's way: the notebook names the kernelspec; no path of this machine goes into it.
      const doc = (await call('notebook.get', { path: 'nb.ipynb' })) as { metadata: Record<string, unknown> };
      expect(doc.metadata.kernelspec).toEqual({
        name: id,
        display_name: list.environments.find((e) => e.id === id)!.displayName,
        language: 'python',
      });
      await call('notebook.save', { path: 'nb.ipynb' });
      const saved = JSON.parse(await readFile(path.join(root, 'nb.ipynb'), 'utf8')) as { metadata: unknown };
      expect(JSON.stringify(saved.metadata)).not.toContain(root);
      // The kernelspec is in Kiln's private Jupyter data folder, and starts the venv's python through the launcher.
      const jupyterDir = path.join(dataDir, 'jupyter');
      const [privateDir] = (await readdir(jupyterDir)).filter((d) => d.startsWith('kiln-jupyter-'));
      const spec = JSON.parse(
        await readFile(path.join(jupyterDir, privateDir, 'data', 'kernels', id, 'kernel.json'), 'utf8'),
      ) as { argv: string[] };
      expect(spec.argv[0]).toBe(venvPython);
      expect(spec.argv).toContain(path.join(jupyterDir, privateDir, 'kiln_kernel_launcher.py'));
      // Which folder the kernelspec starts is Kiln's own state, not the notebook's.
      const stateDir = path.join(dataDir, 'kernel-environments');
      const [stateFile] = await readdir(stateDir);
      expect(JSON.parse(await readFile(path.join(stateDir, stateFile), 'utf8'))).toMatchObject({
        kernelspecs: { [id]: { dir: path.join(root, '.venv') } },
      });
    } finally {
      await opened.services.dispose();
    }

    // A new Kiln (a new private Jupyter folder): the notebook's kernelspec is written again at the server's start.
    opened = await open(root, dataDir);
    try {
      const doc = (await opened.call('notebook.open', { path: 'nb.ipynb' })) as unknown;
      expect(doc).toBeTruthy();
      expect(printed(await opened.call('notebook.runCell', { path: 'nb.ipynb', cellId: 'c0' }))).toBe(venvPython);
      const info = (await opened.call('notebook.get', { path: 'nb.ipynb' })) as { kernel: { name: string } };
      expect(info.kernel.name).toBe(id);
    } finally {
      await opened.services.dispose();
    }
  }, 180_000);

  it('a venv made while Kiln runs is offered through the change feed, without asking again', async () => {
    const { services, call, events } = await open(root, dataDir);
    try {
      await services.watching();
      const before = (await call('kernelEnvironments.list')) as KernelEnvironmentList;
      expect(before.environments.some((e) => e.path === 'venv')).toBe(false);
      const started = Date.now();
      await makeVenv(path.join(root, 'venv'), true);
      const announced = await until(
        () => events.find((list) => list.environments.some((e) => e.path === 'venv' && e.hasIpykernel)),
        'the new venv announced',
        5_000,
      );
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(announced.environments.map((e) => e.path)).toEqual(expect.arrayContaining(['.venv', 'plain', 'venv']));

      // ipykernel installed into one (as pip lays it down): it turns pickable, again from the feed.
      const site = path.join(
        root,
        'plain',
        'lib',
        (await readdir(path.join(root, 'plain', 'lib')))[0],
        'site-packages',
      );
      await mkdir(path.join(site, 'ipykernel'), { recursive: true });
      await writeFile(path.join(site, 'ipykernel', '__init__.py'), '');
      await until(
        () => events.find((list) => list.environments.some((e) => e.path === 'plain' && e.hasIpykernel)),
        'ipykernel seen in plain',
        5_000,
      );
    } finally {
      await services.dispose();
    }
  }, 60_000);
});

describe('an untrusted workspace', () => {
  it('offers none of its environments, and picking one by id is refused; trusting offers them', async () => {
    const { root, cleanup } = await makeTempTree({ 'nb.ipynb': notebook });
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'kiln-envs-untrusted-'));
    cleanups.push(cleanup, () => rm(dataDir, { recursive: true, force: true }));
    await makeVenv(path.join(root, '.venv'), true);
    const { services, call, events } = await open(root, dataDir);
    try {
      const list = (await call('kernelEnvironments.list')) as KernelEnvironmentList;
      expect(list).toMatchObject({ offered: false, environments: [] });
      expect(list.note).toMatch(/once it is trusted/);
      const { environmentKernelspecName } = await import('../../main/kernel/environments');
      const id = environmentKernelspecName(path.join(root, '.venv'));
      await expect(call('notebook.setEnvironment', { path: 'nb.ipynb', id })).rejects.toMatchObject({
        code: 'E_UNTRUSTED',
      });
      // No Jupyter server was started for it, so no kernelspec was written anywhere.
      expect(await readdir(path.join(dataDir, 'jupyter')).catch(() => [])).toEqual([]);

      await call('trust.set', { trusted: true });
      await until(
        () => events.find((l) => l.offered && l.environments.some((e) => e.path === '.venv')),
        'the environments offered once trusted',
      );
    } finally {
      await services.dispose();
    }
  }, 60_000);
});

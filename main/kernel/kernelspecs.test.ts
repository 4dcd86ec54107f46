import * as fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { KernelMessage } from '@jupyterlab/services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JupyterServerManager } from './jupyter-server';
import { KernelSession } from './kernel-session';
import { wrappedArgv } from './kernelspecs';

/** A planted module that, if Python ever imports it, writes a canary outside the workspace. */
function canaryModule(canary: string): string {
  return `open(${JSON.stringify(canary)}, 'w').write('ran')\n`;
}

async function runText(session: KernelSession, code: string): Promise<{ status: string; text: string }> {
  const outputs: KernelMessage.IIOPubMessage[] = [];
  const reply = await session.execute(code, { onOutput: (msg) => outputs.push(msg) });
  const text = outputs
    .map((m) => {
      const c = m.content as { text?: string; data?: Record<string, string>; evalue?: string };
      return c.text ?? c.data?.['text/plain'] ?? c.evalue ?? '';
    })
    .join('');
  return { status: reply.status, text };
}

describe('wrappedArgv', () => {
  const options = { python: () => '/usr/bin/python3', launcher: '/k/launch.py', safePath: () => true };

  it('replaces -m ipykernel_launcher with the launcher, keeping interpreter options and the rest', () => {
    expect(
      wrappedArgv(['python3', '-X', 'frozen_modules=off', '-m', 'ipykernel_launcher', '-f', '{c}'], options),
    ).toEqual(['/usr/bin/python3', '-X', 'frozen_modules=off', '-P', '/k/launch.py', '-f', '{c}']);
    expect(
      wrappedArgv(['/env/bin/python', '-m', 'ipykernel', '-f', '{c}'], { ...options, safePath: () => false }),
    ).toEqual(['/usr/bin/python3', '/k/launch.py', '-f', '{c}']);
  });

  it('leaves other kernels alone', () => {
    expect(wrappedArgv(['R', '--slave', '-e', 'IRkernel::main()', '--args', '{c}'], options)).toBeNull();
    expect(wrappedArgv(['python3', '-m', 'xeus_python', '-f', '{c}'], options)).toBeNull();
  });
});

describe("Kiln's kernelspecs", () => {
  let base: string;
  let root: string;
  let canaries: string;
  let userData: string;
  let server: JupyterServerManager;

  beforeAll(async () => {
    base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'kiln-kspec-')));
    root = path.join(base, 'ws');
    canaries = path.join(base, 'canaries');
    userData = path.join(base, 'xdg-data');
    await fs.mkdir(path.join(root, 'nb', 'ipykernel'), { recursive: true });
    await fs.mkdir(canaries);
    // Everything a `python -m ipykernel_launcher` in the notebook's folder would pick up first.
    await fs.writeFile(path.join(root, 'nb', 'ipykernel_launcher.py'), canaryModule(path.join(canaries, 'launcher')));
    await fs.writeFile(path.join(root, 'nb', 'ipykernel', '__init__.py'), canaryModule(path.join(canaries, 'package')));
    await fs.writeFile(path.join(root, 'nb', 'mymodule.py'), 'VALUE = 41 + 1\n');
    // An operator kernelspec, found through the user's Jupyter data folder, started the unsafe way.
    const spec = path.join(userData, 'jupyter', 'kernels', 'operator-env');
    await fs.mkdir(spec, { recursive: true });
    await fs.writeFile(
      path.join(spec, 'kernel.json'),
      JSON.stringify({
        argv: ['python3', '-m', 'ipykernel_launcher', '-f', '{connection_file}'],
        display_name: 'Operator env',
        language: 'python',
      }),
    );
    server = new JupyterServerManager({
      rootDir: root,
      stateDir: path.join(base, 'state'),
      env: { ...process.env, XDG_DATA_HOME: userData },
    });
  });

  afterAll(async () => {
    await server.dispose();
    await fs.rm(base, { recursive: true, force: true });
  });

  for (const kernelName of ['python3', 'operator-env']) {
    it(`${kernelName}: nothing beside the notebook runs at start; the notebook's folder is importable after`, async () => {
      const session = new KernelSession({ server, notebookPath: 'nb/a.ipynb', kernelName, srcDir: null });
      try {
        await session.start();
        expect(session.info.name).toBe(kernelName);
        expect(await fs.readdir(canaries)).toEqual([]);
        expect(await runText(session, '1+1')).toEqual({ status: 'ok', text: '2' });
        expect(await runText(session, 'import mymodule\nmymodule.VALUE')).toEqual({ status: 'ok', text: '42' });
        // The kernel runs from its private launcher, with the notebook's folder as its working folder.
        const argv = await runText(
          session,
          'import sys, os\nprint(sys.argv[0].endswith("kiln_kernel_launcher.py"), os.getcwd())',
        );
        expect(argv.text.trim()).toBe(`True ${path.join(root, 'nb')}`);
        expect(await fs.readdir(canaries)).toEqual([]);
      } finally {
        await session.dispose();
      }
    });
  }

  it('wraps the operator kernelspec in the private data dir, argv absolute', async () => {
    await server.start();
    const written = JSON.parse(
      await fs.readFile(path.join(server.privateDir!, 'data', 'kernels', 'operator-env', 'kernel.json'), 'utf8'),
    ) as { argv: string[]; display_name: string };
    expect(written.display_name).toBe('Operator env');
    expect(path.isAbsolute(written.argv[0])).toBe(true);
    expect(written.argv).not.toContain('-m');
    expect(written.argv).toContain(path.join(server.privateDir!, 'kiln_kernel_launcher.py'));
  });
});

import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findProcessesByMarker } from '../../process';
import { trustFolder } from '../../trust';
import { holdJupyterAtStart } from '../../../test-support/held-jupyter';
import { makeTempTree } from '../../../test-support/temp-workspace';
import { until } from '../../../test-support/until';
import { connectClient } from '../../../test-support/web-host';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** Starts `npm run serve`'s entry point as its own process, as an operator does. */
async function startCli(
  files: Record<string, string>,
  env: NodeJS.ProcessEnv = {},
  options: { trusted?: boolean; args?: string[] } = {},
) {
  const { root, cleanup } = await makeTempTree(files);
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'kiln-cli-data-'));
  await writeFile(path.join(dataDir, 'index.html'), '<!doctype html>');
  if (options.trusted) await trustFolder(dataDir, root);
  cleanups.push(cleanup, () => rm(dataDir, { recursive: true, force: true }));
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(__dirname, 'cli.ts'), root, ...(options.args ?? [])],
    {
      env: { ...process.env, ...env, KILN_DATA_DIR: dataDir, KILN_RENDERER_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  cleanups.push(async () => void child.kill('SIGKILL'));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += String(chunk);
      const found = /Kiln web host: (\S+)/.exec(out)?.[1];
      if (found) resolve(found);
    });
    void exited.then((code) => reject(new Error(`the host exited (${code}) before serving: ${out}`)));
  });
  return { child, url, exited, root, dataDir };
}

describe('the web host process', () => {
  it('logs to <dataDir>/logs/kiln.log (0600), and to stderr too under --verbose', async () => {
    const { child, url, dataDir } = await startCli({ 'hello.txt': 'hi' }, {}, { args: ['--verbose'] });
    let err = '';
    child.stderr.on('data', (chunk) => (err += String(chunk)));
    expect((await fetch(url)).status).toBe(200);
    const file = path.join(dataDir, 'logs', 'kiln.log');
    const started = (text: string) => text.split('\n').some((line) => line.includes('"web host starting"'));
    expect(started(await readFile(file, 'utf8'))).toBe(true);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    // stderr is buffered until read: the listener above hears the start record even if it came first.
    await until(() => started(err), 'the start record on stderr');
  });

  it('stops on SIGTERM, also when its project config is an alias bomb', async () => {
    const bomb = [
      'a: &a [x,x,x,x,x,x,x,x,x]',
      ...'bcdefghi'.split('').map((c, i) => `${c}: &${c} [${Array(9).fill(`*${'abcdefghi'[i]}`).join(',')}]`),
    ];
    const { child, url, exited } = await startCli({ '.kiln/config.yaml': bomb.join('\n'), 'hello.txt': 'hi' });
    expect((await fetch(url)).status).toBe(200);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('leaves no Jupyter behind when stopped while Jupyter is still starting', async () => {
    const held = await holdJupyterAtStart();
    cleanups.push(held.close);
    const { child, url, exited, dataDir } = await startCli(
      { 'hello.txt': 'hi' },
      { PATH: `${held.dir}${path.delimiter}${process.env.PATH}` },
      // Only a trusted folder starts Jupyter.
      { trusted: true },
    );
    const { port, searchParams } = new URL(url);
    const client = await connectClient({ port: Number(port), token: searchParams.get('token') ?? '' });
    cleanups.push(async () => client.close());
    // Asking for kernelspecs starts Jupyter, which hangs in start-up (its reply never comes).
    void client.call('notebook.kernelSpecs', {});
    await until(async () => (await findProcessesByMarker(dataDir)).length > 0, 'the Jupyter server process');
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(await findProcessesByMarker(dataDir)).toEqual([]);
  });
});

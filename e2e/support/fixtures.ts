import { test as base, expect, type Page } from '@playwright/test';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { trustFolder } from '../../main/trust';

/** A real folder on disk, fresh per test, with a small default fixture tree. */
export class TempWorkspace {
  constructor(readonly root: string) {}

  abs(rel: string): string {
    return path.join(this.root, ...rel.split('/'));
  }

  async write(rel: string, content: string | Buffer): Promise<void> {
    await mkdir(path.dirname(this.abs(rel)), { recursive: true });
    await writeFile(this.abs(rel), content);
  }

  read(rel: string): Promise<string> {
    return readFile(this.abs(rel), 'utf8');
  }

  async exists(rel: string): Promise<boolean> {
    return readFile(this.abs(rel)).then(
      () => true,
      (err: NodeJS.ErrnoException) => err.code === 'EISDIR',
    );
  }
}

export interface KilnWebHost {
  /** The address the host printed, `?token=` and all; the page keeps the token in sessionStorage. */
  url: string;
  origin: string;
  /**
   * The host's token, for a test's own client: a WebSocket sends `{"auth": token}` as its first message (requests
   * may follow at once; the host answers `{"auth":"ok"}`), an upload `Authorization: Bearer <token>`. No cookie
   * carries it, and `/ws?token=` is not read.
   */
  token: string;
  dataDir: string;
  /** Opens Kiln in the page and waits for the file tree. */
  open(page: Page): Promise<void>;
}

export const DEFAULT_FIXTURE: Record<string, string> = {
  'README.md': '# Fixture workspace\n\nUsed by the end-to-end tests.\n',
  'src/app.py': 'def greet(name):\n    return f"hello {name}"\n\nprint(greet("kiln"))\n',
  'src/util.py': 'VALUE = 42\n',
  'data/sample.csv': 'a,b\n1,2\n3,4\n',
  'notes/todo.txt': 'first\nsecond\n',
  '.hidden-config': 'secret=1\n',
};

const REPO_ROOT = path.resolve(import.meta.dirname, '../..');

/** Starts the built web host on a folder, the way `npm run serve` does. */
export async function startWebHost(
  root: string,
  dataDir: string,
  env: Record<string, string> = {},
  args: string[] = [],
): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'out/main/web.js'), root, '--port', '0', ...args], {
    env: { ...process.env, KILN_DATA_DIR: dataDir, XDG_DATA_HOME: path.join(dataDir, 'xdg-data'), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Both streams, interleaved as they came; the last part is what explains a failure.
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-HOST_OUTPUT_KEPT));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`web host did not start: ${output}`)), 30_000);
    const findUrl = () => {
      const match = /Kiln web host: (\S+)/.exec(output);
      if (!match) return;
      clearTimeout(timer);
      child.stdout!.off('data', findUrl);
      resolve(match[1]);
    };
    child.stdout!.on('data', findUrl);
    child.once('exit', (code, signal) => reject(new Error(`web host exited with ${code ?? signal}: ${output}`)));
  });
  child.once('exit', (code, signal) => keep(Buffer.from(`\n[web host exited with ${code ?? signal}]\n`)));
  return { child, url, output: () => output };
}

const HOST_OUTPUT_KEPT = 20_000;

export const test = base.extend<{
  fixtureFiles: Record<string, string>;
  hostEnv: Record<string, string>;
  /** Extra web host arguments: its test seams (`--test-hold-search-after N`, `--test-refuse-watches-after N`). */
  hostArgs: string[];
  trusted: boolean;
  /** Files of the operator's data folder written before the host starts (e.g. the user-level `config.yaml`). */
  dataFiles: Record<string, string>;
  /**
   * `python.languageServer` for the test: off unless the spec tests language features, since every spec that
   * opens a .py file or a notebook would otherwise start pyright (CPU on CI).
   */
  languageServer: 'on' | 'off';
  workspace: TempWorkspace;
  kiln: KilnWebHost;
}>({
  fixtureFiles: [DEFAULT_FIXTURE, { option: true }],
  hostEnv: [{}, { option: true }],
  hostArgs: [[], { option: true }],
  // Fixture workspaces are the tests' own, so trusted; the trust specs open untrusted ones.
  trusted: [true, { option: true }],
  dataFiles: [{}, { option: true }],
  languageServer: ['off', { option: true }],
  workspace: async ({ fixtureFiles }, use) => {
    const root = await mkdtemp(path.join(os.tmpdir(), 'kiln-e2e-ws-'));
    const workspace = new TempWorkspace(root);
    for (const [rel, content] of Object.entries(fixtureFiles)) await workspace.write(rel, content);
    await use(workspace);
    await rm(root, { recursive: true, force: true });
  },
  kiln: async ({ workspace, hostEnv, hostArgs, trusted, dataFiles, languageServer }, use, testInfo) => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'kiln-e2e-data-'));
    for (const [rel, content] of Object.entries(dataFiles)) await writeFile(path.join(dataDir, rel), content);
    if (trusted) await trustFolder(dataDir, workspace.root);
    // The web host's prefs (conf's file in the data folder, dotted keys nested), as the operator's command leaves them.
    await writeFile(path.join(dataDir, 'prefs.json'), JSON.stringify({ python: { languageServer } }));
    const { child, url, output } = await startWebHost(workspace.root, dataDir, hostEnv, hostArgs);
    const parsed = new URL(url);
    await use({
      url,
      origin: parsed.origin,
      token: parsed.searchParams.get('token') ?? '',
      dataDir,
      async open(page) {
        await page.goto(url);
        await expect(page.getByRole('tree', { name: 'Files' })).toBeVisible();
      },
    });
    // A failed test's report shows what the host printed (the list reporter prints it inline, so CI's log has it).
    if (testInfo.status !== testInfo.expectedStatus) await testInfo.attach('web host output', { body: output() });
    child.kill('SIGTERM');
    await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)));
    await rm(dataDir, { recursive: true, force: true });
  },
});

export { expect };

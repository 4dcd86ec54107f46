import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { parseRecord } from '../main/history/backups';
import { trustFolder } from '../main/trust';
import { jupyterOneCellNotebook } from '../test-support/notebook-doc';
import { DEFAULT_FIXTURE, expect, startWebHost, test } from './support/fixtures';
import { editorText, mod, openFile, typeAtEnd } from './support/ui';

// Jupyter's own formatting, with a number JavaScript's JSON would rewrite: a restored notebook keeps it.
const NOTEBOOK = `${jupyterOneCellNotebook('x = 1', ['"ratio": 2.0'])}\n`;

test.use({ fixtureFiles: { ...DEFAULT_FIXTURE, 'analysis.ipynb': NOTEBOOK } });

const notebookRegion = (page: Page) => page.getByRole('region', { name: 'analysis.ipynb', exact: true });

/** The first cell's text as its editor shows it. */
const firstCell = (page: Page) =>
  notebookRegion(page).getByRole('group', { name: 'Cell 1', exact: true }).locator('.nb-editor');

async function typeInNotebook(page: Page, text: string): Promise<void> {
  await page
    .getByRole('tree', { name: 'Files' })
    .getByRole('treeitem', { name: 'analysis.ipynb', exact: true })
    .click();
  await expect(notebookRegion(page)).toBeVisible();
  await firstCell(page).locator('.view-lines').click();
  await page.keyboard.press(`${mod}+End`);
  await page.keyboard.type(text);
}

/** How many hot-exit backups the data folder holds (what a killed host leaves for the next one). */
async function backupCount(dataDir: string): Promise<number> {
  const root = path.join(dataDir, 'backups');
  let count = 0;
  for (const workspace of await readdir(root).catch(() => [])) {
    count += (await readdir(path.join(root, workspace))).filter((name) => name.endsWith('.json')).length;
  }
  return count;
}

/** The texts of the workspace's backups (each file ends with its text, after a line of metadata). */
async function backupTexts(dataDir: string): Promise<string[]> {
  const root = path.join(dataDir, 'backups');
  const texts: string[] = [];
  for (const workspace of await readdir(root).catch(() => [])) {
    for (const name of await readdir(path.join(root, workspace))) {
      if (!name.endsWith('.json')) continue;
      const file = await readFile(path.join(root, workspace, name), 'utf8').catch(() => null);
      const record = file === null ? null : parseRecord(file);
      if (record) texts.push(record.text);
    }
  }
  return texts;
}

/** A host of our own on the test's workspace and a data folder that outlives it, so it can be killed and started again. */
test.describe('hot exit', () => {
  let dataDir: string;
  let host: ChildProcess | null = null;

  test.beforeEach(async ({ workspace }) => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'kiln-e2e-hot-exit-'));
    await trustFolder(dataDir, workspace.root);
  });
  test.afterEach(async () => {
    if (host && host.exitCode === null && host.signalCode === null) {
      const exited = new Promise((resolve) => host!.once('exit', resolve));
      host.kill('SIGTERM');
      await exited;
    }
    await rm(dataDir, { recursive: true, force: true });
  });

  async function start(page: Page, root: string): Promise<void> {
    const started = await startWebHost(root, dataDir);
    host = started.child;
    await page.goto(started.url);
    await expect(page.getByRole('tree', { name: 'Files' })).toBeVisible();
  }

  async function killHost(): Promise<void> {
    const exited = new Promise((resolve) => host!.once('exit', resolve));
    host!.kill('SIGKILL');
    await exited;
  }

  test('a killed host comes back with the typed text in a dirty tab, the disk unchanged', async ({
    page,
    workspace,
  }) => {
    await start(page, workspace.root);
    await openFile(page, 'notes', 'todo.txt');
    await typeAtEnd(page, 'typed before the crash');
    await expect.poll(() => backupCount(dataDir)).toBe(1);
    await killHost();

    await start(page, workspace.root);
    await expect(page.getByText('Restored 1 unsaved file')).toBeVisible();
    await expect(page.getByRole('tab', { name: 'todo.txt' })).toHaveAttribute('data-dirty', 'true');
    await expect(editorText(page)).toContainText('typed before the crash');
    expect(await workspace.read('notes/todo.txt')).toBe('first\nsecond\n');
    await page.screenshot({ path: test.info().outputPath('hot-exit-restored.png') });

    // Saving writes it and drops the backup.
    await page.keyboard.press(`${mod}+s`);
    await expect.poll(() => workspace.read('notes/todo.txt')).toBe('first\nsecond\ntyped before the crash');
    await expect.poll(() => backupCount(dataDir)).toBe(0);
  });

  test('typing in a 5 MB file backs it up in frames of a few bytes, and a killed host brings back every byte', async ({
    page,
    workspace,
  }) => {
    const big = Array.from({ length: 240_000 }, (_, i) => `row ${i}: value ${(i * 7919) % 10007}\n`).join('');
    await workspace.write('big.txt', big);
    // The size of every backup frame the page sends over the contract's WebSocket.
    await page.addInitScript(() => {
      const frames: number[] = [];
      (window as unknown as { backupFrames: number[] }).backupFrames = frames;
      const send = WebSocket.prototype.send;
      WebSocket.prototype.send = function (this: WebSocket, data) {
        if (typeof data === 'string' && data.includes('"channel":"backup.')) frames.push(data.length);
        return send.call(this, data);
      };
    });
    await start(page, workspace.root);
    await openFile(page, 'big.txt');
    await typeAtEnd(page, 'typed at the end');
    // The backup kept is the whole buffer, although no frame carried more than the edit.
    const typed = `${big}typed at the end`;
    await expect.poll(async () => (await backupTexts(dataDir)).join() === typed, { timeout: 20_000 }).toBe(true);
    const frames = await page.evaluate(() => (window as unknown as { backupFrames: number[] }).backupFrames);
    expect(frames.length).toBeGreaterThan(0);
    expect(Math.max(...frames)).toBeLessThan(1024);
    await killHost();

    await start(page, workspace.root);
    await expect(page.getByText('Restored 1 unsaved file')).toBeVisible();
    await expect(page.getByRole('tab', { name: 'big.txt' })).toHaveAttribute('data-dirty', 'true');
    await editorText(page).click();
    await page.keyboard.press(`${mod}+End`);
    await expect(editorText(page)).toContainText('typed at the end');
    expect((await workspace.read('big.txt')) === big).toBe(true);
  });

  test('a file changed on disk while the host was down opens in the conflict state with both versions', async ({
    page,
    workspace,
  }) => {
    await start(page, workspace.root);
    await openFile(page, 'notes', 'todo.txt');
    await typeAtEnd(page, 'mine');
    await expect.poll(() => backupCount(dataDir)).toBe(1);
    await killHost();
    await workspace.write('notes/todo.txt', 'first\nsecond\ntheirs\n');

    await start(page, workspace.root);
    await expect(page.getByRole('tab', { name: 'todo.txt' })).toHaveAttribute('data-dirty', 'true');
    await expect(editorText(page)).toContainText('mine');
    await expect(page.getByRole('alert', { name: 'Changed on disk' })).toBeVisible();
    expect(await workspace.read('notes/todo.txt')).toBe('first\nsecond\ntheirs\n');
    await page.screenshot({ path: test.info().outputPath('hot-exit-conflict.png') });
  });

  test('a reload right after typing asks nothing and brings the text back', async ({ page, workspace }) => {
    await start(page, workspace.root);
    await openFile(page, 'notes', 'todo.txt');
    await typeAtEnd(page, 'just typed');
    // No wait for the debounce: the page sends what is pending as it goes.
    await page.reload();
    await expect(page.getByText('Restored 1 unsaved file')).toBeVisible();
    await expect(editorText(page)).toContainText('just typed');
    expect(await workspace.read('notes/todo.txt')).toBe('first\nsecond\n');
  });

  test('a killed host brings a typed notebook back dirty with its cells, the disk unchanged; saving keeps its bytes', async ({
    page,
    workspace,
  }) => {
    await start(page, workspace.root);
    await typeInNotebook(page, '\ny = 2');
    await expect.poll(() => backupCount(dataDir)).toBe(1);
    await killHost();

    await start(page, workspace.root);
    await expect(page.getByText('Restored 1 unsaved file')).toBeVisible();
    await expect(page.getByRole('tab', { name: 'analysis.ipynb' })).toHaveAttribute('data-dirty', 'true');
    await expect(firstCell(page)).toContainText('y = 2');
    expect(await workspace.read('analysis.ipynb')).toBe(NOTEBOOK);
    await page.screenshot({ path: test.info().outputPath('hot-exit-notebook-restored.png') });

    await firstCell(page).locator('.view-lines').click();
    await page.keyboard.press(`${mod}+s`);
    await expect.poll(() => workspace.read('analysis.ipynb')).toContain('"y = 2"');
    const saved = await workspace.read('analysis.ipynb');
    expect(saved).toContain('"ratio": 2.0');
    expect(saved).toBe(NOTEBOOK.replace('"x = 1"', '"x = 1\\n",\n    "y = 2"'));
    await expect.poll(() => backupCount(dataDir)).toBe(0);
  });

  test('a notebook changed on disk while the host was down opens dirty in the conflict state', async ({
    page,
    workspace,
  }) => {
    await start(page, workspace.root);
    await typeInNotebook(page, ' # mine');
    await expect.poll(() => backupCount(dataDir)).toBe(1);
    await killHost();
    const theirs = NOTEBOOK.replace('"x = 1"', '"x = 1 # theirs"');
    await workspace.write('analysis.ipynb', theirs);

    await start(page, workspace.root);
    await expect(page.getByRole('tab', { name: 'analysis.ipynb' })).toHaveAttribute('data-dirty', 'true');
    await expect(firstCell(page)).toContainText('x = 1 # mine');
    await expect(notebookRegion(page).getByRole('alert', { name: 'Changed on disk' })).toBeVisible();
    expect(await workspace.read('analysis.ipynb')).toBe(theirs);

    // Compared as cells: the disk's cell 1 ↔ the restored one, never the notebook's JSON.
    const bar = notebookRegion(page).getByRole('alert', { name: 'Changed on disk' });
    await bar.getByRole('button', { name: 'Compare', exact: true }).click();
    const changes = notebookRegion(page).getByRole('region', { name: 'Notebook changes' });
    await expect(changes.getByRole('group')).toHaveCount(1);
    await expect(changes.getByRole('group').first()).toHaveAccessibleName('Cell 1: source changed');
    await expect(changes.getByTestId('cell-source-diff').locator('.monaco-diff-editor')).toBeVisible();
    await expect(changes).not.toContainText('"cell_type"');
    await page.screenshot({ path: test.info().outputPath('hot-exit-notebook-conflict.png') });
    // Nothing is decided in the compare: Overwrite keeps the restored edits, nbformat's bytes and all.
    await bar.getByRole('button', { name: 'Overwrite' }).click();
    await expect.poll(() => workspace.read('analysis.ipynb')).toContain('x = 1 # mine');
    await expect(changes).toHaveCount(0);
  });

  test('the text of a file deleted while the host was down waits in "Recovered files" until discarded', async ({
    page,
    workspace,
  }) => {
    await start(page, workspace.root);
    await openFile(page, 'notes', 'todo.txt');
    await typeAtEnd(page, 'kept for later');
    await expect.poll(() => backupCount(dataDir)).toBe(1);
    await killHost();
    await rm(path.join(workspace.root, 'notes/todo.txt'));

    await start(page, workspace.root);
    const recovered = page.getByRole('region', { name: 'Recovered files' });
    await expect(page.getByText('1 deleted file has unsaved changes: see Recovered files')).toBeVisible();
    await expect(recovered.getByRole('listitem')).toHaveText(/todo\.txt/);
    await expect(page.getByRole('tab', { name: 'todo.txt' })).toHaveCount(0);
    await page.screenshot({ path: test.info().outputPath('hot-exit-recovered.png') });

    // Kept across another start, until the operator discards it.
    await page.reload();
    await expect(recovered.getByRole('button', { name: 'Discard notes/todo.txt' })).toBeVisible();
    await recovered.getByRole('button', { name: 'Discard notes/todo.txt' }).click();
    await expect(recovered).toHaveCount(0);
    await expect.poll(() => backupCount(dataDir)).toBe(0);
  });

  test('a recovered file opens as a dirty tab marked deleted', async ({ page, workspace }) => {
    await start(page, workspace.root);
    await openFile(page, 'notes', 'todo.txt');
    await typeAtEnd(page, 'bring me back');
    await expect.poll(() => backupCount(dataDir)).toBe(1);
    await killHost();
    await rm(path.join(workspace.root, 'notes/todo.txt'));

    await start(page, workspace.root);
    await page
      .getByRole('region', { name: 'Recovered files' })
      .getByRole('button', { name: 'Open notes/todo.txt' })
      .click();
    await expect(page.getByRole('tab', { name: 'todo.txt' })).toHaveAttribute('data-dirty', 'true');
    await expect(editorText(page)).toContainText('bring me back');
    await expect(page.getByRole('region', { name: 'Recovered files' })).toHaveCount(0);
  });

  test('a notebook deleted while the host was down is recovered: Open brings its cells back, dirty', async ({
    page,
    workspace,
  }) => {
    await start(page, workspace.root);
    await typeInNotebook(page, ' # recovered');
    await expect.poll(() => backupCount(dataDir)).toBe(1);
    await killHost();
    await rm(path.join(workspace.root, 'analysis.ipynb'));

    await start(page, workspace.root);
    const recovered = page.getByRole('region', { name: 'Recovered files' });
    await recovered.getByRole('button', { name: 'Open analysis.ipynb' }).click();
    await expect(page.getByRole('tab', { name: 'analysis.ipynb' })).toHaveAttribute('data-dirty', 'true');
    await expect(firstCell(page)).toContainText('x = 1 # recovered');
    await expect(notebookRegion(page).getByRole('alert')).toContainText('deleted');
    await page.screenshot({ path: test.info().outputPath('hot-exit-notebook-recovered.png') });
  });
});

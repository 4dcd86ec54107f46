import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Locator, Page } from '@playwright/test';
import { expect } from './support/fixtures';
import { configureScriptedModel, testWithModel } from './support/model';
import { cell, cellOf, notebook, openNotebook } from './support/notebook';
import { dragWithMouse, editorText, expandFolder, fileTree, mod, openFile, treeItem } from './support/ui';

const run = promisify(execFile);
/** The Agent tab needs a model configured for its composer to take text. */
const test = testWithModel(['scripted-agent']);

/** Bytes no text transform would leave alone: every byte value, CR LF and a NUL run included. */
const BLOB = Buffer.concat([
  Buffer.from(Array.from({ length: 256 * 300 }, (_, i) => i % 256)),
  Buffer.from('\r\n\0\0'),
]);

async function downloadFromMenu(page: Page, row: Locator) {
  await row.click({ button: 'right' });
  const started = page.waitForEvent('download');
  await page.getByRole('menuitem', { name: 'Download', exact: true }).click();
  const download = await started;
  return { name: download.suggestedFilename(), bytes: await readFile((await download.path())!) };
}

function agentPanel(page: Page): Locator {
  return page.getByRole('complementary', { name: 'Agent' });
}

test.describe('out of Kiln (web host)', () => {
  test('Download saves a file byte for byte, and a folder as a zip of its files', async ({ page, kiln, workspace }) => {
    await workspace.write('data/blob.bin', BLOB);
    await workspace.write('data/deep/é.txt', 'accent\n');
    await kiln.open(page);
    await expandFolder(page, 'data');

    const file = await downloadFromMenu(page, treeItem(page, 'blob.bin'));
    expect(file.name).toBe('blob.bin');
    expect(file.bytes.equals(BLOB)).toBe(true);

    const folder = await downloadFromMenu(page, treeItem(page, 'data'));
    expect(folder.name).toBe('data.zip');
    const out = await mkdtemp(path.join(os.tmpdir(), 'kiln-e2e-unzip-'));
    try {
      await writeFile(path.join(out, 'data.zip'), folder.bytes);
      await run('/usr/bin/python3', ['-m', 'zipfile', '-e', path.join(out, 'data.zip'), out]);
      expect((await readFile(path.join(out, 'data/blob.bin'))).equals(BLOB)).toBe(true);
      expect(await readFile(path.join(out, 'data/deep/é.txt'), 'utf8')).toBe('accent\n');
      expect(await readFile(path.join(out, 'data/sample.csv'), 'utf8')).toBe(await workspace.read('data/sample.csv'));
    } finally {
      await rm(out, { recursive: true, force: true });
    }

    // On the tree's empty space, Download takes the whole workspace.
    const box = (await fileTree(page).boundingBox())!;
    await page.mouse.click(box.x + 100, box.y + box.height - 40, { button: 'right' });
    const started = page.waitForEvent('download');
    await page.getByRole('menuitem', { name: 'Download', exact: true }).click();
    expect((await started).suggestedFilename()).toBe(`${path.basename(workspace.root)}.zip`);
  });

  test('dragging a row out of the browser carries a single-use ticketed DownloadURL for that row only', async ({
    page,
    kiln,
    workspace,
    playwright,
  }) => {
    await workspace.write('data/other.txt', 'not this one\n');
    // The tickets the host hands the page, read off its socket.
    const tickets: string[] = [];
    page.on('websocket', (socket) =>
      socket.on('framereceived', ({ payload }) => {
        const url = /"url":"(\/download\?[^"]+)"/.exec(String(payload))?.[1];
        if (url) tickets.push(url);
      }),
    );
    /**
     * A drag out of the window, as dragWithMouse makes it, waiting after the press for the row's ticket: a person's
     * drag takes far longer to start than the loopback round trip, a scripted one need not.
     */
    const dragOut = async (row: Locator) => {
      const asked = tickets.length;
      const box = (await row.boundingBox())!;
      await page.mouse.move(box.x + 40, box.y + box.height / 2);
      await page.mouse.down();
      await expect.poll(() => tickets.length).toBe(asked + 1);
      await page.mouse.move(box.x + 46, box.y + box.height / 2 + 6, { steps: 3 });
      await page.mouse.move(700, 400, { steps: 10 });
      await page.mouse.up();
    };
    await kiln.open(page);
    await page.evaluate(() => {
      // Read after the tree filled the drag (a bubbling listener on window runs after React's).
      window.addEventListener('dragstart', (event) => {
        (window as unknown as { seen: string }).seen = event.dataTransfer?.getData('DownloadURL') ?? '';
      });
    });
    await dragOut(treeItem(page, 'README.md'));
    const seen = await page.evaluate(() => (window as unknown as { seen?: string }).seen ?? '');
    const prefix = `application/octet-stream:README.md:${kiln.origin}/download?path=README.md&ticket=`;
    expect(seen.startsWith(prefix), seen).toBe(true);
    const url = seen.slice('application/octet-stream:README.md:'.length);
    const ticket = new URL(url).searchParams.get('ticket')!;
    expect(seen).not.toContain(kiln.token);
    // The ticket names README.md alone: asking for another path with it gets nothing, and spends it.
    const stranger = await playwright.request.newContext();
    const other = await stranger.get(`${kiln.origin}/download?path=data%2Fother.txt&ticket=${ticket}`);
    expect(other.status()).toBe(401);
    expect(await other.text()).not.toContain('not this one');
    expect((await stranger.get(url)).status()).toBe(401);
    // A fresh drag's ticket serves the file once, to whoever holds the URL (the OS, a drop target), then no more.
    await dragOut(treeItem(page, 'README.md'));
    const fresh = (await page.evaluate(() => (window as unknown as { seen: string }).seen)).slice(
      'application/octet-stream:README.md:'.length,
    );
    const served = await stranger.get(fresh);
    expect(served.headers()['content-disposition']).toContain('attachment');
    expect(await served.text()).toBe(await workspace.read('README.md'));
    expect((await stranger.get(fresh)).status()).toBe(401);
    // Without a ticket the page's own context (its origin, its storage) gets nothing either: no cookie carries it.
    expect((await page.request.get(`${kiln.origin}/download?path=README.md`)).status()).toBe(401);
    await stranger.dispose();
    // Dropped outside the tree, nothing moved.
    expect(await workspace.exists('README.md')).toBe(true);
  });
});

test.describe('paths into sessions and editors', () => {
  test('tree rows dropped on the Agent composer or its transcript insert their paths, never contents; an OS file is copied in first', async ({
    page,
    kiln,
    workspace,
    model,
  }) => {
    await configureScriptedModel(workspace, model, 'scripted-agent', ['agent']);
    await kiln.open(page);
    await page.getByRole('tab', { name: 'Agent' }).click();
    const message = agentPanel(page).getByRole('textbox', { name: 'Message' });
    await expect(message).toBeEnabled();

    await dragWithMouse(page, treeItem(page, 'README.md'), agentPanel(page).getByRole('log'));
    await expect(message).toHaveValue('README.md');

    await expandFolder(page, 'src');
    await treeItem(page, 'app.py').click();
    await treeItem(page, 'util.py').click({ modifiers: [mod] });
    await dragWithMouse(page, treeItem(page, 'util.py'), message, { release: false });
    await page.screenshot({ path: test.info().outputPath('drop-on-composer.png') });
    await page.mouse.up();
    await expect(message).toHaveValue('README.md\nsrc/app.py\nsrc/util.py');
    // A drop into the session moved nothing.
    expect(await workspace.exists('src/app.py')).toBe(true);
    expect(await workspace.exists('README.md')).toBe(true);

    // A file from the OS has no workspace path in the browser: it is offered a copy in, and then its path goes in.
    await message.evaluate((box) => {
      const data = new DataTransfer();
      data.items.add(new File(['dropped bytes'], 'photo.png', { type: 'image/png' }));
      for (const type of ['dragenter', 'dragover', 'drop'])
        box.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: data }));
    });
    const offer = page.getByRole('dialog', { name: 'Copy "photo.png" into the workspace?' });
    await offer.getByRole('button', { name: 'Copy to the workspace root' }).click();
    await expect(message).toHaveValue('README.md\nsrc/app.py\nsrc/util.py photo.png');
    expect(await workspace.read('photo.png')).toBe('dropped bytes');
  });

  test('a row dropped into a notebook cell with Shift inserts its path relative to the notebook', async ({
    page,
    kiln,
    workspace,
  }) => {
    await workspace.write('analysis/explore.ipynb', notebook(cell('code', 'import pandas as pd\n')));
    await kiln.open(page);
    await expandFolder(page, 'analysis');
    const nb = await openNotebook(page, 'explore.ipynb');
    const lines = cellOf(nb, 1).locator('.monaco-editor .view-lines');
    await expect(lines).toContainText('import pandas');
    const box = (await lines.boundingBox())!;
    const start = { x: box.x + 2, y: box.y + 8 };
    await expandFolder(page, 'data');
    await dragWithMouse(page, treeItem(page, 'sample.csv'), start, { release: false });
    await page.keyboard.down('Shift');
    await page.mouse.move(start.x + 1, start.y);
    await page.mouse.up();
    await page.keyboard.up('Shift');
    await expect(lines).toContainText('../data/sample.csvimport pandas');
    expect(await workspace.exists('data/sample.csv')).toBe(true);
  });

  test('a row dropped into the editor with Shift inserts its path relative to the open file; without, opens it', async ({
    page,
    kiln,
  }) => {
    await kiln.open(page);
    await openFile(page, 'src', 'app.py');
    await expect(editorText(page)).toContainText('def greet');
    const lines = (await editorText(page).boundingBox())!;
    const firstLine = { x: lines.x + 2, y: lines.y + 8 };

    await dragWithMouse(page, treeItem(page, 'README.md'), firstLine, { release: false });
    await page.keyboard.down('Shift');
    await page.mouse.move(firstLine.x + 1, firstLine.y);
    await page.mouse.up();
    await page.keyboard.up('Shift');
    await expect(editorText(page)).toContainText('../README.mddef greet');
    await expect(page.getByRole('tab', { name: 'app.py' })).toBeVisible();
    await page.screenshot({ path: test.info().outputPath('shift-drop-path.png') });

    // A folder has nothing to open in an editor; a file opens.
    await dragWithMouse(page, treeItem(page, 'notes'), firstLine);
    await dragWithMouse(page, treeItem(page, 'util.py'), firstLine);
    await expect(page.getByRole('tab', { name: 'util.py', exact: true })).toHaveAttribute('aria-selected', 'true');
    await expect(editorText(page)).toContainText('VALUE = 42');
    await expect(page.getByRole('tab', { name: 'notes', exact: true })).toHaveCount(0);
    await expect(page.locator('.toast-error')).toHaveCount(0);
  });
});

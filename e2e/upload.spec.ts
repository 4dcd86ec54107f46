import { mkdir, mkdtemp, open, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { expect, test } from './support/fixtures';
import { expandFolder, fileTree, treeItem } from './support/ui';

type DroppedFile = { name: string; bytes: number[] };

/**
 * An OS drop as the page sees it: a DataTransfer built in the page holding real File objects, dragged over the
 * element (which must accept it and highlight) and dropped. `release: false` stops after the drag-over.
 */
async function dropFiles(target: Locator, files: DroppedFile[], options: { release?: boolean } = {}): Promise<void> {
  await target.evaluate(
    (element, { files, release }) => {
      const data = new DataTransfer();
      for (const f of files) data.items.add(new File([new Uint8Array(f.bytes)], f.name));
      const box = element.getBoundingClientRect();
      const at = { clientX: box.left + 20, clientY: box.top + Math.min(10, box.height / 2) };
      const fire = (type: string) =>
        element.dispatchEvent(new DragEvent(type, { dataTransfer: data, bubbles: true, cancelable: true, ...at }));
      fire('dragenter');
      const accepted = !fire('dragover');
      if (!accepted) throw new Error('the drop target did not accept the files');
      if (release) fire('drop');
    },
    { files, release: options.release !== false },
  );
}

const bytesOf = (text: string) => [...Buffer.from(text)];
/** Bytes that a text conversion anywhere on the way would change. */
const BINARY = [0, 255, 13, 10, 128, 1, 2, 3, 0xc3, 0x28];

/** Kiln's private temp files anywhere in the workspace. */
async function kilnTemps(root: string): Promise<string[]> {
  return (await readdir(root, { recursive: true })).filter((p) => path.basename(p).startsWith('.kiln-'));
}

/** The web host serving this workspace, found by its command line; its resident memory in bytes. */
async function hostRss(root: string): Promise<number> {
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (!cmdline.includes('out/main/web.js') || !cmdline.split('\0').includes(root)) continue;
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
  }
  throw new Error('the web host process was not found');
}

async function chooseInMenu(page: Page, rowName: string | null, item: string): Promise<void> {
  if (rowName) await treeItem(page, rowName).click({ button: 'right' });
  else {
    const box = (await fileTree(page).boundingBox())!;
    await page.mouse.click(box.x + 100, box.y + box.height - 30, { button: 'right' });
  }
  await page.getByRole('menuitem', { name: item }).click();
}

test.describe('files from the desktop into the workspace', () => {
  test('two files dropped on a folder row and on empty space land there with their bytes', async ({
    page,
    kiln,
    workspace,
  }) => {
    await kiln.open(page);
    const data = treeItem(page, 'data');
    // Over a folder row: the row highlights, as for the tree's own drag.
    await dropFiles(data, [{ name: 'x.bin', bytes: BINARY }], { release: false });
    await expect(data).toHaveAttribute('data-drop', 'valid');
    await page.screenshot({ path: test.info().outputPath('upload-drag-over-folder.png') });
    await dropFiles(data, [
      { name: 'one.bin', bytes: BINARY },
      { name: 'two.txt', bytes: bytesOf('second file\n') },
    ]);
    await expect(treeItem(page, 'one.bin')).toBeVisible();
    await expect(treeItem(page, 'two.txt')).toBeVisible();
    expect([...(await readFile(workspace.abs('data/one.bin')))]).toEqual(BINARY);
    expect(await workspace.read('data/two.txt')).toBe('second file\n');

    // Over a collapsed folder the drop target opens after a pause, as in the tree's own drag.
    const notes = treeItem(page, 'notes');
    await expect(notes).toHaveAttribute('aria-expanded', 'false');
    await expect
      .poll(async () => {
        await dropFiles(notes, [{ name: 'x.bin', bytes: BINARY }], { release: false });
        return notes.getAttribute('aria-expanded');
      })
      .toBe('true');
    // Empty space means the root: the whole tree highlights.
    await dropFiles(fileTree(page), [{ name: 'x.bin', bytes: BINARY }], { release: false });
    await expect(fileTree(page)).toHaveClass(/drop-root/);
    await fileTree(page).dispatchEvent('dragleave');
    await expect(fileTree(page)).not.toHaveClass(/drop-root/);

    // A file row stands for its folder; empty space for the root.
    await dropFiles(treeItem(page, 'README.md'), [{ name: 'at-root-1.txt', bytes: bytesOf('r1') }]);
    const empty = fileTree(page);
    await dropFiles(empty, [
      { name: 'at-root-2.bin', bytes: BINARY },
      { name: 'at-root-3.txt', bytes: bytesOf('r3') },
    ]);
    await expect(treeItem(page, 'at-root-3.txt')).toBeVisible();
    expect(await workspace.read('at-root-1.txt')).toBe('r1');
    expect([...(await readFile(workspace.abs('at-root-2.bin')))]).toEqual(BINARY);
    expect(await workspace.read('at-root-3.txt')).toBe('r3');
    expect(await kilnTemps(workspace.root)).toEqual([]);
  });

  test('"Upload Folder…" brings a folder in with its structure', async ({ page, kiln, workspace }) => {
    const outside = await mkdtemp(path.join(os.tmpdir(), 'kiln-upload-src-'));
    try {
      await mkdir(path.join(outside, 'proj/lib/deep'), { recursive: true });
      await writeFile(path.join(outside, 'proj/README.md'), '# proj\n');
      await writeFile(path.join(outside, 'proj/lib/main.py'), 'print(1)\n');
      await writeFile(path.join(outside, 'proj/lib/deep/blob.bin'), Buffer.from(BINARY));
      await kiln.open(page);
      const chooser = page.waitForEvent('filechooser');
      await chooseInMenu(page, 'notes', 'Upload Folder…');
      await (await chooser).setFiles(path.join(outside, 'proj'));
      await expect(treeItem(page, 'proj')).toBeVisible();
      await expect.poll(() => workspace.exists('notes/proj/lib/deep/blob.bin')).toBe(true);
      expect(await workspace.read('notes/proj/README.md')).toBe('# proj\n');
      expect(await workspace.read('notes/proj/lib/main.py')).toBe('print(1)\n');
      expect([...(await readFile(workspace.abs('notes/proj/lib/deep/blob.bin')))]).toEqual(BINARY);
      await expandFolder(page, 'proj');
      await expandFolder(page, 'lib');
      await expect(treeItem(page, 'deep')).toBeVisible();
      await page.screenshot({ path: test.info().outputPath('upload-folder.png') });
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  test('a clash asks Replace / Keep both / Cancel; Keep both makes "name copy.ext"', async ({
    page,
    kiln,
    workspace,
  }) => {
    await kiln.open(page);
    await dropFiles(fileTree(page), [{ name: 'README.md', bytes: bytesOf('dropped readme\n') }]);
    const dialog = page.getByRole('dialog', { name: '"README.md" already exists' });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByRole('button')).toHaveText(['Replace', 'Keep both', 'Cancel']);
    await page.screenshot({ path: test.info().outputPath('upload-clash.png') });
    await dialog.getByRole('button', { name: 'Keep both' }).click();
    await expect(treeItem(page, 'README copy.md')).toBeVisible();
    expect(await workspace.read('README copy.md')).toBe('dropped readme\n');
    expect(await workspace.read('README.md')).toBe('# Fixture workspace\n\nUsed by the end-to-end tests.\n');

    // Several clashes offer to apply the answer to all; Replace all replaces each.
    await dropFiles(treeItem(page, 'src'), [
      { name: 'app.py', bytes: bytesOf('A = 1\n') },
      { name: 'util.py', bytes: bytesOf('U = 2\n') },
    ]);
    const first = page.getByRole('dialog', { name: '"app.py" already exists' });
    await expect(first.getByRole('button')).toHaveText([
      'Replace',
      'Keep both',
      'Replace all',
      'Keep both for all',
      'Cancel',
    ]);
    await first.getByRole('button', { name: 'Replace all' }).click();
    await expect.poll(() => workspace.read('src/util.py')).toBe('U = 2\n');
    expect(await workspace.read('src/app.py')).toBe('A = 1\n');
  });

  test('Replace of a clashing folder makes it what was dropped, as the desktop app does, never a merge', async ({
    page,
    kiln,
    workspace,
  }) => {
    await workspace.write('proj/old.txt', 'only in the old folder\n');
    await workspace.write('proj/same.txt', 'old\n');
    const outside = await mkdtemp(path.join(os.tmpdir(), 'kiln-upload-replace-'));
    try {
      await mkdir(path.join(outside, 'proj/lib'), { recursive: true });
      await writeFile(path.join(outside, 'proj/same.txt'), 'new\n');
      await writeFile(path.join(outside, 'proj/lib/added.txt'), 'added\n');
      await kiln.open(page);
      const chooser = page.waitForEvent('filechooser');
      await chooseInMenu(page, null, 'Upload Folder…');
      await (await chooser).setFiles(path.join(outside, 'proj'));
      const dialog = page.getByRole('dialog', { name: '"proj" already exists' });
      await dialog.getByRole('button', { name: 'Replace' }).click();
      await expect.poll(() => workspace.exists('proj/lib/added.txt')).toBe(true);
      expect(await workspace.read('proj/same.txt')).toBe('new\n');
      expect(await workspace.exists('proj/old.txt')).toBe(false);
      // The new folder came in beside the old one and took its place: nothing of that is left once the old one
      // has gone to the trash, which happens after the new one is in place.
      expect(await workspace.exists('proj copy')).toBe(false);
      await expect.poll(() => kilnTemps(workspace.root)).toEqual([]);
      await expandFolder(page, 'proj');
      await expect(treeItem(page, 'lib')).toBeVisible();
      await expect(treeItem(page, 'old.txt')).toHaveCount(0);
      await page.screenshot({ path: test.info().outputPath('upload-replace-folder.png') });

      // A file dropped over a folder of its name replaces the folder too.
      await dropFiles(fileTree(page), [{ name: 'notes', bytes: bytesOf('now a file\n') }]);
      await page
        .getByRole('dialog', { name: '"notes" already exists' })
        .getByRole('button', { name: 'Replace' })
        .click();
      await expect.poll(() => workspace.read('notes').catch(() => null)).toBe('now a file\n');
      expect(await workspace.exists('notes copy')).toBe(false);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  test('cancelling a 300 MB upload mid-way leaves no partial file, and the host holds little memory', async ({
    page,
    kiln,
    workspace,
  }) => {
    const outside = await mkdtemp(path.join(os.tmpdir(), 'kiln-upload-big-'));
    const big = path.join(outside, 'big.bin');
    const small = path.join(outside, 'small.txt');
    await writeFile(small, 'whole\n');
    try {
      const handle = await open(big, 'w');
      const chunk = Buffer.alloc(1024 * 1024, 0x5a);
      for (let i = 0; i < 300; i++) await handle.write(chunk);
      await handle.close();
      await kiln.open(page);
      // Uploads on loopback are fast: throttle the page's upload to 20 MB/s so Cancel lands mid-way.
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.emulateNetworkConditions', {
        offline: false,
        latency: 0,
        downloadThroughput: -1,
        uploadThroughput: 20 * 1024 * 1024,
      });
      const before = await hostRss(workspace.root);
      const chooser = page.waitForEvent('filechooser');
      await chooseInMenu(page, 'data', 'Upload Files…');
      // The small file first: it is whole before the cancel and stays.
      await (await chooser).setFiles([small, big]);
      const status = page.getByRole('status', { name: /^Uploading/ });
      await expect(status).toBeVisible();
      // Mid-way: more than 60 MB in, the temp file is on disk, and the host's memory has not grown with it.
      await expect
        .poll(async () =>
          Number(/· ([\d.]+) MB of 300 MB/.exec((await status.getAttribute('aria-label')) ?? '')?.[1] ?? 0),
        )
        .toBeGreaterThan(60);
      expect(await kilnTemps(workspace.root)).toHaveLength(1);
      const during = await hostRss(workspace.root);
      await page.screenshot({ path: test.info().outputPath('upload-progress.png') });
      await status.getByRole('button', { name: 'Cancel' }).click();
      await expect(
        page.getByText('Upload cancelled. 1 whole file was kept; the partly written "big.bin" was removed.'),
      ).toBeVisible();
      await expect(status).toHaveCount(0);
      await page.screenshot({ path: test.info().outputPath('upload-cancelled.png') });
      await expect.poll(() => kilnTemps(workspace.root)).toEqual([]);
      expect(await workspace.exists('data/big.bin')).toBe(false);
      expect(await workspace.read('data/small.txt')).toBe('whole\n');
      expect(during - before, `host RSS grew from ${before} to ${during}`).toBeLessThan(100 * 1024 * 1024);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  test('the browser cannot upload without the token in its Authorization header, nor to a path that escapes the workspace', async ({
    page,
    kiln,
    workspace,
  }) => {
    await kiln.open(page);
    // From Kiln's own page, as its upload code sends: with the token it keeps in sessionStorage, or without it.
    const put = (target: string, withToken: boolean) =>
      page.evaluate(
        async ({ target, withToken }) => {
          const token = sessionStorage.getItem('kiln.token') ?? '';
          const answer = await fetch(`/upload?path=${encodeURIComponent(target)}`, {
            method: 'PUT',
            body: 'sneaked in\n',
            headers: withToken ? { authorization: `Bearer ${token}` } : {},
          });
          return { status: answer.status, body: await answer.text() };
        },
        { target, withToken },
      );
    // Same origin, every cookie the browser has for it: still refused without the header.
    expect((await put('data/no-token.txt', false)).status).toBe(401);
    expect(await workspace.exists('data/no-token.txt')).toBe(false);
    const parent = path.dirname(workspace.root);
    const escaped = `escaped-${path.basename(workspace.root)}.txt`;
    for (const target of [`../${escaped}`, path.join(parent, escaped), `data/../../${escaped}`]) {
      const refused = await put(target, true);
      expect(refused.status, target).toBe(403);
      expect(JSON.parse(refused.body).error.code, target).toBe('E_OUTSIDE_WORKSPACE');
    }
    expect(await readdir(parent)).not.toContain(escaped);
    // The same request with the token and a path inside is taken: the refusals above are the guard's, not a broken route.
    expect((await put('data/let-in.txt', true)).status).toBe(200);
    expect(await workspace.read('data/let-in.txt')).toBe('sneaked in\n');
  });

  test('a file dropped on the editor area from outside is offered a copy, then opens', async ({
    page,
    kiln,
    workspace,
  }) => {
    await kiln.open(page);
    await expandFolder(page, 'src');
    await treeItem(page, 'app.py').click();
    await expect(page.getByRole('tab', { name: 'app.py' })).toBeVisible();
    await dropFiles(page.locator('.editor-area'), [{ name: 'dropped.py', bytes: bytesOf('X = 3\n') }]);
    const dialog = page.getByRole('dialog', { name: 'Copy "dropped.py" into the workspace?' });
    await expect(dialog.getByRole('button')).toHaveText(['Copy to "src"', 'Copy to the workspace root', 'Cancel']);
    await dialog.getByRole('button', { name: 'Copy to "src"' }).click();
    await expect(page.getByRole('tab', { name: 'dropped.py' })).toHaveAttribute('aria-selected', 'true');
    expect(await workspace.read('src/dropped.py')).toBe('X = 3\n');
  });
});

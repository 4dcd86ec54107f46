import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect, startWebHost, test } from './support/fixtures';
import { openFile } from './support/ui';

const LOST = 'Lost the connection to Kiln; reload the window to reconnect.';

test('when Kiln stops, the window says the connection is lost, and a save says why it failed', async ({
  page,
  workspace,
}) => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'kiln-e2e-data-'));
  const { child, url } = await startWebHost(workspace.root, dataDir);
  try {
    await page.goto(url);
    await openFile(page, 'notes', 'todo.txt');
    await page.locator('.code-editor .monaco-editor .view-lines').click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('third');
    await expect(page.getByRole('tab', { name: 'todo.txt' })).toHaveAttribute('data-dirty', 'true');

    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    await expect(page.getByRole('alert', { name: 'Connection' })).toContainText(LOST);
    await expect(page.getByRole('alert', { name: 'Connection' }).getByRole('button', { name: 'Reload' })).toBeVisible();

    await page.keyboard.press('Control+S');
    await expect(page.locator('.toast[role="alert"]')).toContainText(`Could not save todo.txt: ${LOST}`);
    // The unsaved text is still there to copy out.
    await expect(page.locator('.code-editor .monaco-editor .view-lines')).toContainText('third');
    expect(await workspace.read('notes/todo.txt')).toBe('first\nsecond\n');
  } finally {
    if (child.exitCode === null) child.kill('SIGTERM');
    await rm(dataDir, { recursive: true, force: true });
  }
});

test.describe('no other page can frame Kiln or read its token', () => {
  test('a page on another 127.0.0.1 port that frames Kiln gets it blocked by Chromium', async ({ page, kiln }) => {
    // The other server on loopback, as any local dev server the operator's browser visits.
    const other = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        `<!doctype html><title>Other</title><iframe id="kiln" src="${kiln.url}" width="800" height="600"></iframe>`,
      );
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const refusals: string[] = [];
    page.on('console', (message) => refusals.push(message.text()));
    const framed: string[] = [];
    page.on('response', (response) => {
      if (response.url().startsWith(kiln.origin)) framed.push(response.url());
    });
    try {
      await page.goto(`http://127.0.0.1:${(other.address() as AddressInfo).port}/`);
      // Chromium fetched the page, saw its headers and refused to show it in the frame.
      await expect.poll(() => framed.length).toBeGreaterThan(0);
      await expect
        .poll(() => refusals.find((text) => text.includes('frame-ancestors') || text.includes('X-Frame-Options')))
        .toBeTruthy();
      const frame = page.frames().find((f) => f !== page.mainFrame())!;
      await expect.poll(() => frame.url()).toBe('chrome-error://chromewebdata/');
      // Nothing of Kiln ran in it: no script, no socket, no token stored for the other page's origin.
      expect(framed.filter((url) => url.includes('/assets/'))).toEqual([]);
      expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
  });

  test('no answer sets a cookie, every answer denies framing, and a reload keeps working on the tab-kept token', async ({
    page,
    kiln,
  }) => {
    const answers: Array<{ url: string; headers: Record<string, string> }> = [];
    page.on('response', async (response) => {
      if (response.url().startsWith(kiln.origin))
        answers.push({ url: response.url(), headers: await response.allHeaders() });
    });
    await kiln.open(page);
    expect(page.url()).toBe(`${kiln.origin}/`);
    await page.reload();
    await expect(page.getByRole('treeitem', { name: 'README.md' })).toBeVisible();
    await openFile(page, 'notes', 'todo.txt');
    await expect(page.locator('.code-editor .monaco-editor .view-lines')).toContainText('second');
    expect(answers.length).toBeGreaterThan(4);
    for (const { url, headers } of answers) {
      expect(headers['set-cookie'], url).toBeUndefined();
      expect(headers['x-frame-options'], url).toBe('DENY');
      expect(headers['content-security-policy'], url).toContain("frame-ancestors 'none'");
    }
    expect(await page.context().cookies()).toEqual([]);
    // The token lives in this tab's sessionStorage, for this origin only.
    expect(await page.evaluate(() => sessionStorage.getItem('kiln.token'))).toBe(kiln.token);
  });
});

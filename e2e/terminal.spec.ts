import { expect, test } from './support/fixtures';

test.use({ fixtureFiles: { 'README.md': '# Fixture\n', 'src/kilnpkg/__init__.py': 'GREETING = "hello from src"\n' } });

test('Ctrl+` opens a terminal in the workspace that runs echo and Python with src/ on sys.path; tabs; kill ends the shell', async ({
  page,
  kiln,
  workspace,
}) => {
  await kiln.open(page);
  const panel = page.getByRole('region', { name: 'Terminal' });
  await expect(panel).toBeHidden();
  await page.keyboard.press('Control+`');
  await expect(panel).toBeVisible();
  const tabs = panel.getByRole('tablist', { name: 'Terminals' }).getByRole('tab');
  await expect(tabs).toHaveCount(1);
  const screen = panel.locator('.terminal-view:not([hidden]) .xterm-rows');

  await page.keyboard.type('echo "kiln says $((6 * 7))"\n');
  await expect(screen).toContainText('kiln says 42');
  await page.keyboard.type(`python3 -c 'import sys; print(sys.path)'\n`);
  await expect(screen).toContainText(`${workspace.root}/src`);
  await page.keyboard.type(`python3 -c 'import kilnpkg; print(kilnpkg.GREETING)'; pwd\n`);
  await expect(screen).toContainText('hello from src');
  await expect(screen).toContainText(workspace.root);
  await page.screenshot({ path: test.info().outputPath('kiln-terminal.png') });

  // A second terminal in its own tab; the first keeps its output.
  await panel.getByRole('button', { name: 'New Terminal' }).click();
  await expect(tabs).toHaveCount(2);
  await expect(tabs.nth(1)).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.type('echo "pid=$$"\n');
  await expect(screen).toContainText(/pid=\d+/);
  const pid = Number(/pid=(\d+)/.exec((await screen.textContent()) ?? '')![1]);
  await tabs.nth(0).click();
  await expect(screen).toContainText('kiln says 42');

  // Killing a tab ends its shell.
  const second = await tabs.nth(1).textContent();
  await panel.getByRole('button', { name: `Kill ${second}` }).click();
  await expect(tabs).toHaveCount(1);
  await expect.poll(() => alive(pid)).toBe(false);

  // Ctrl+` hides and shows the panel again, with the terminal as it was.
  await page.keyboard.press('Control+`');
  await expect(panel).toBeHidden();
  await page.keyboard.press('Control+`');
  await expect(screen).toContainText('kiln says 42');
});

test('100,000 lines of output keep the window responsive and all arrive', async ({ page, kiln }) => {
  await kiln.open(page);
  await page.keyboard.press('Control+`');
  const panel = page.getByRole('region', { name: 'Terminal' });
  const screen = panel.locator('.terminal-view:not([hidden]) .xterm-rows');
  await expect(panel.getByRole('tab')).toHaveCount(1);
  await page.keyboard.type('seq 1 100000; echo "DO""NE"\n');
  // While it streams, the window still answers: Quick Open opens and closes.
  await page.keyboard.press('Control+p');
  await expect(page.getByRole('dialog', { name: 'Quick Open' })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(screen).toContainText('DONE', { timeout: 30_000 });
  await expect(screen).toContainText('100000');
  // Frames keep coming after the flood: 30 within 10 s (how evenly is a benchmark's question; this CPU is shared).
  const frames = await page.evaluate(
    () =>
      new Promise<number>((resolve) => {
        let count = 0;
        setTimeout(() => resolve(count), 10_000);
        const tick = () => (++count < 30 ? requestAnimationFrame(tick) : resolve(count));
        requestAnimationFrame(tick);
      }),
  );
  expect(frames).toBe(30);
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

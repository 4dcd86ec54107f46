import { expect, test } from './support/fixtures';

test('the tree lists the fixture workspace, hidden files hidden', async ({ page, kiln }) => {
  await kiln.open(page);
  const tree = page.getByRole('tree', { name: 'Files' });
  for (const name of ['src', 'data', 'notes', 'README.md']) {
    await expect(tree.getByRole('treeitem', { name, exact: true })).toBeVisible();
  }
  await expect(tree.getByRole('treeitem', { name: '.hidden-config' })).toHaveCount(0);
});

test('a file created by another program appears in the tree', async ({ page, kiln, workspace }) => {
  await kiln.open(page);
  await workspace.write('created-outside.txt', 'from another program\n');
  await expect(page.getByRole('treeitem', { name: 'created-outside.txt' })).toBeVisible();
});

test('opening a file shows its text in Monaco', async ({ page, kiln }) => {
  await kiln.open(page);
  await page.getByRole('treeitem', { name: 'app.py' }).click();
  await expect(page.locator('.monaco-editor .view-lines')).toContainText('def greet(name):');
});

test('src/ is open on first load and scripts/ is collapsed', async ({ page, kiln, workspace }) => {
  await workspace.write('scripts/step_01_run_app.py', 'import runpy\n');
  await kiln.open(page);
  const tree = page.getByRole('tree', { name: 'Files' });
  await expect(tree.getByRole('treeitem', { name: 'src', exact: true })).toHaveAttribute('aria-expanded', 'true');
  await expect(tree.getByRole('treeitem', { name: 'app.py' })).toBeVisible();
  await expect(tree.getByRole('treeitem', { name: 'scripts', exact: true })).toHaveAttribute('aria-expanded', 'false');
  await expect(tree.getByRole('treeitem', { name: 'step_01_run_app.py' })).toHaveCount(0);
});

test('without the token the page gets only the app bundle: no workspace over HTTP or WebSocket', async ({
  page,
  kiln,
}) => {
  const wrong = await page.request.get(`${kiln.origin}/?token=wrong`);
  expect(wrong.status()).toBe(401);
  // The bundle itself is public; without a token the page shows no files and says which address to open.
  await page.goto(`${kiln.origin}/`);
  await expect(page.getByRole('alert')).toContainText('the token printed when the web host started');
  await expect(page.getByRole('tree', { name: 'Files' })).toHaveCount(0);
  await page.screenshot({ path: test.info().outputPath('no-token.png') });
  const closed = await page.evaluate(
    (origin) =>
      new Promise<string>((resolve) => {
        const socket = new WebSocket(`${origin.replace('http', 'ws')}/ws?token=nope`);
        const got: string[] = [];
        socket.onopen = () => {
          socket.send(JSON.stringify({ auth: 'nope' }));
          socket.send(JSON.stringify({ id: 1, channel: 'workspace.list', args: { path: '' } }));
        };
        socket.onmessage = (m) => got.push(String(m.data));
        socket.onclose = (e) => resolve(`${e.code} ${got.length}`);
      }),
    kiln.origin,
  );
  expect(closed).toBe('4401 0');
});

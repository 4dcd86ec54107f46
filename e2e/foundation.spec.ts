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

test('requests without the token are refused, over HTTP and WebSocket', async ({ page, kiln }) => {
  const plain = await page.request.get(`${kiln.origin}/`);
  expect(plain.status()).toBe(401);
  const wrong = await page.request.get(`${kiln.origin}/?token=wrong`);
  expect(wrong.status()).toBe(401);
  await page.goto(`${kiln.origin}/nothing-here`);
  const opened = await page.evaluate(
    (origin) =>
      new Promise<string>((resolve) => {
        const socket = new WebSocket(`${origin.replace('http', 'ws')}/ws?token=nope`);
        socket.onopen = () => resolve('open');
        socket.onerror = () => resolve('refused');
      }),
    kiln.origin,
  );
  expect(opened).toBe('refused');
});

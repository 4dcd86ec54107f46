import { mkdir, writeFile } from 'node:fs/promises';
import { expect, test } from './support/fixtures';
import { expandFolder, treeItem } from './support/ui';

const FOLDERS = 20;
const FILES_PER_FOLDER = 2_500;

/** 50,000 files in 20 folders. */
async function writeBigTree(root: string): Promise<void> {
  for (let d = 0; d < FOLDERS; d++) {
    const dir = `${root}/shard-${String(d).padStart(2, '0')}`;
    await mkdir(dir);
    for (let i = 0; i < FILES_PER_FOLDER; i += 500) {
      await Promise.all(
        Array.from({ length: 500 }, (_, j) => writeFile(`${dir}/part-${String(i + j).padStart(5, '0')}.bin`, '')),
      );
    }
  }
}

// The tree is written before the host starts (the workspace fixture comes before kiln's): the host sees a big
// workspace at start-up, as when an operator opens one, rather than a burst of 50,000 creations.
const bigWorkspace = test.extend({
  workspace: async ({ workspace }, use) => {
    await writeBigTree(workspace.root);
    await use(workspace);
  },
});

bigWorkspace.describe('a big workspace', () => {
  bigWorkspace.use({ fixtureFiles: { 'README.md': '# big\n' } });
  // Writing the tree counts against the test's time (fixtures do).
  bigWorkspace.describe.configure({ timeout: 120_000 });

  bigWorkspace(
    'live changes reach the tree at the root and in a folder expanded later',
    async ({ page, workspace, kiln }) => {
      await kiln.open(page);
      await expect(treeItem(page, 'shard-19')).toBeVisible();
      await workspace.write('at-root.txt', 'r');
      await expect(treeItem(page, 'at-root.txt')).toBeVisible();
      await expandFolder(page, 'shard-17');
      await expect(treeItem(page, 'part-00000.bin')).toBeVisible();
      await workspace.write('shard-17/aaa-new.txt', 'n');
      await expect(treeItem(page, 'aaa-new.txt')).toBeVisible();
      await workspace.write('shard-17/zzz/inner.txt', 'deep');
      await expect(treeItem(page, 'zzz')).toBeAttached();
    },
  );
});

test.describe('when the OS refuses more file watches', () => {
  // The root keeps its watch; every folder below is refused (ENOSPC), as past fs.inotify.max_user_watches.
  test.use({ hostArgs: ['--test-refuse-watches-after', '1'] });

  test('Kiln keeps working, says once what degraded and how to raise the limit, and polls open folders', async ({
    page,
    kiln,
    workspace,
  }) => {
    await kiln.open(page);
    const line = page.getByRole('status', { name: 'File watching' });
    await expect(line).toContainText('fs.inotify.max_user_watches');
    await expect(line).toContainText('ENOSPC');
    // The root is still watched: a new file there shows at once.
    await workspace.write('at-root.txt', 'r');
    await expect(treeItem(page, 'at-root.txt')).toBeVisible();
    // notes/ has no watch; while it is open it is re-read.
    await expandFolder(page, 'notes');
    await workspace.write('notes/polled.txt', 'p');
    await expect(treeItem(page, 'polled.txt')).toBeVisible();
    await page.screenshot({ path: test.info().outputPath('degraded.png') });
    await line.getByRole('button', { name: 'Dismiss' }).click();
    await expect(line).toHaveCount(0);
  });
});

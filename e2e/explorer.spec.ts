import { existsSync, readdirSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, test } from './support/fixtures';
import { clipboardText, dragWithMouse, expandFolder, fileTree, mod, recordFlashes, treeItem } from './support/ui';

const MENU_ITEMS = [
  'New File',
  'New Folder',
  'Upload Files…',
  'Upload Folder…',
  'Cut',
  'Copy',
  'Paste',
  'Copy Path',
  'Copy Absolute Path',
  'Download',
  'Open Timeline',
  'Open Changes',
  'Rename',
  'Delete',
];

test.describe('context menu', () => {
  test('on an entry and on empty space it offers exactly the fourteen actions', async ({ page, kiln }) => {
    await kiln.open(page);
    await treeItem(page, 'README.md').click({ button: 'right' });
    const menu = page.getByRole('menu');
    await expect(menu).toBeVisible();
    await expect(menu.getByRole('menuitem')).toHaveText(MENU_ITEMS);
    await page.screenshot({ path: test.info().outputPath('kiln-context-menu.png') });
    await page.keyboard.press('Escape');
    await expect(menu).toHaveCount(0);

    const box = (await fileTree(page).boundingBox())!;
    await page.mouse.click(box.x + 100, box.y + box.height - 40, { button: 'right' });
    await expect(page.getByRole('menu').getByRole('menuitem')).toHaveText(MENU_ITEMS);
    // Nothing to rename or delete on empty space; nothing to paste yet.
    for (const name of ['Rename', 'Delete', 'Cut', 'Copy', 'Paste', 'Open Timeline', 'Open Changes']) {
      await expect(page.getByRole('menuitem', { name, exact: true })).toHaveAttribute('aria-disabled', 'true');
    }
  });

  test('New File creates the file in the folder, on disk and in the tree, and opens it', async ({
    page,
    kiln,
    workspace,
  }) => {
    await kiln.open(page);
    await treeItem(page, 'src').click({ button: 'right' });
    await page.getByRole('menuitem', { name: 'New File' }).click();
    const input = page.getByRole('textbox', { name: 'New file name' });
    await input.fill('added.py');
    await input.press('Enter');
    await expect(treeItem(page, 'added.py')).toBeVisible();
    expect(await workspace.read('src/added.py')).toBe('');
    await expect(page.getByRole('tab', { name: 'added.py' })).toBeVisible();
  });

  test('New Folder on empty space creates it at the root', async ({ page, kiln, workspace }) => {
    await kiln.open(page);
    const box = (await fileTree(page).boundingBox())!;
    await page.mouse.click(box.x + 100, box.y + box.height - 40, { button: 'right' });
    await page.getByRole('menuitem', { name: 'New Folder' }).click();
    await page.getByRole('textbox', { name: 'New folder name' }).fill('reports');
    await page.keyboard.press('Enter');
    await expect(treeItem(page, 'reports')).toHaveAttribute('aria-expanded', 'false');
    expect(existsSync(workspace.abs('reports'))).toBe(true);
  });

  test('Rename from the menu moves the file on disk', async ({ page, kiln, workspace }) => {
    await kiln.open(page);
    await treeItem(page, 'README.md').click({ button: 'right' });
    await page.getByRole('menuitem', { name: 'Rename' }).click();
    const input = page.getByRole('textbox', { name: 'New name' });
    await input.fill('INTRO.md');
    await input.press('Enter');
    await expect(treeItem(page, 'INTRO.md')).toBeVisible();
    await expect(treeItem(page, 'README.md')).toHaveCount(0);
    expect(await workspace.read('INTRO.md')).toContain('Fixture workspace');
    expect(await workspace.exists('README.md')).toBe(false);
  });

  test('Copy Path gives the relative path; Copy Absolute Path the absolute one', async ({ page, kiln, workspace }) => {
    await kiln.open(page);
    await expandFolder(page, 'src');
    await treeItem(page, 'app.py').click({ button: 'right' });
    await page.getByRole('menuitem', { name: 'Copy Path', exact: true }).click();
    await expect.poll(() => clipboardText(page)).toBe('src/app.py');
    await treeItem(page, 'app.py').click({ button: 'right' });
    await page.getByRole('menuitem', { name: 'Copy Absolute Path' }).click();
    await expect.poll(() => clipboardText(page)).toBe(path.join(workspace.root, 'src', 'app.py'));
  });

  test('Copy then Paste duplicates as "name copy.ext", then "name copy 2.ext"', async ({ page, kiln, workspace }) => {
    await kiln.open(page);
    await expandFolder(page, 'src');
    await treeItem(page, 'app.py').click({ button: 'right' });
    await page.getByRole('menuitem', { name: 'Copy', exact: true }).click();
    await treeItem(page, 'app.py').click({ button: 'right' });
    await page.getByRole('menuitem', { name: 'Paste' }).click();
    await expect(treeItem(page, 'app copy.py')).toBeVisible();
    // Keyboard: Ctrl/Cmd+C, Ctrl/Cmd+V.
    await treeItem(page, 'app.py').click();
    await page.keyboard.press(`${mod}+c`);
    await page.keyboard.press(`${mod}+v`);
    await expect(treeItem(page, 'app copy 2.py')).toBeVisible();
    expect(await workspace.read('src/app copy.py')).toBe(await workspace.read('src/app.py'));
    expect(await workspace.read('src/app copy 2.py')).toBe(await workspace.read('src/app.py'));
  });

  test('Cut then Paste onto a folder moves the file', async ({ page, kiln, workspace }) => {
    await kiln.open(page);
    await treeItem(page, 'README.md').click({ button: 'right' });
    await page.getByRole('menuitem', { name: 'Cut' }).click();
    await treeItem(page, 'notes').click({ button: 'right' });
    await page.getByRole('menuitem', { name: 'Paste' }).click();
    await expect(treeItem(page, 'notes')).toHaveAttribute('aria-expanded', 'true');
    await expect(treeItem(page, 'README.md')).toHaveAttribute('aria-level', '2');
    expect(await workspace.exists('notes/README.md')).toBe(true);
    expect(await workspace.exists('README.md')).toBe(false);
  });

  test('Cut and paste by keyboard moves several selected entries', async ({ page, kiln, workspace }) => {
    await kiln.open(page);
    await treeItem(page, 'README.md').click();
    await treeItem(page, 'data').click({ modifiers: [mod] });
    await page.keyboard.press(`${mod}+x`);
    await treeItem(page, 'notes').click();
    await page.keyboard.press(`${mod}+v`);
    await expect(treeItem(page, 'data')).toHaveAttribute('aria-level', '2');
    await expect(treeItem(page, 'README.md')).toHaveAttribute('aria-level', '2');
    expect(await workspace.exists('notes/README.md')).toBe(true);
    expect(await workspace.exists('notes/data/sample.csv')).toBe(true);
    expect(existsSync(workspace.abs('data'))).toBe(false);
  });
});

test.describe('rename and delete by keyboard', () => {
  test('F2 renames inline with the name without extension selected', async ({ page, kiln, workspace }) => {
    await kiln.open(page);
    await treeItem(page, 'README.md').click();
    await page.keyboard.press('F2');
    const input = page.getByRole('textbox', { name: 'New name' });
    await expect(input).toBeFocused();
    const selected = await input.evaluate((el: HTMLInputElement) =>
      el.value.slice(el.selectionStart ?? 0, el.selectionEnd ?? 0),
    );
    expect(selected).toBe('README');
    await page.keyboard.type('GUIDE');
    await page.keyboard.press('Enter');
    await expect(treeItem(page, 'GUIDE.md')).toBeVisible();
    expect(await workspace.exists('GUIDE.md')).toBe(true);
    // Escape leaves the name alone.
    await page.keyboard.press('F2');
    await page.keyboard.type('nope');
    await page.keyboard.press('Escape');
    await expect(treeItem(page, 'GUIDE.md')).toBeVisible();
  });

  test('a rename onto an existing name fails with a clear message and changes nothing', async ({
    page,
    kiln,
    workspace,
  }) => {
    await kiln.open(page);
    await treeItem(page, 'README.md').click();
    await page.keyboard.press('F2');
    await page.getByRole('textbox', { name: 'New name' }).fill('src');
    await page.keyboard.press('Enter');
    await expect(page.getByRole('alert').filter({ hasText: 'already exists' })).toContainText(
      'Could not rename "README.md"',
    );
    await expect(treeItem(page, 'README.md')).toBeVisible();
    expect(await workspace.exists('README.md')).toBe(true);
  });

  test('Delete asks first naming the folder and its entries; Cancel keeps it, Delete trashes it', async ({
    page,
    kiln,
    workspace,
  }) => {
    await kiln.open(page);
    await treeItem(page, 'src').click(); // src/ opens by itself; this collapses it and selects it
    await page.keyboard.press('Delete');
    const dialog = page.getByRole('dialog');
    await expect(dialog).toContainText('"src"');
    await expect(dialog).toContainText('2 files and 0 folders');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(dialog).toHaveCount(0);
    expect(existsSync(workspace.abs('src'))).toBe(true);

    await treeItem(page, 'src').click({ button: 'right' });
    await page.getByRole('menuitem', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await expect(treeItem(page, 'src')).toHaveCount(0);
    expect(existsSync(workspace.abs('src'))).toBe(false);
    // It went to the trash, not into oblivion.
    const info = path.join(kiln.dataDir, 'xdg-data', 'Trash', 'info');
    const records = await Promise.all(readdirSync(info).map((name) => readFile(path.join(info, name), 'utf8')));
    expect(records.join('\n')).toContain(`Path=${workspace.abs('src')}`);
  });
});

test.describe('drag and drop', () => {
  test('dragging a file onto a folder moves it (real mouse)', async ({ page, kiln, workspace }) => {
    await kiln.open(page);
    await dragWithMouse(page, treeItem(page, 'README.md'), treeItem(page, 'notes'), { release: false });
    await expect(treeItem(page, 'notes')).toHaveAttribute('data-drop', 'valid');
    await page.screenshot({ path: test.info().outputPath('kiln-drag.png') });
    await page.mouse.up();
    await expect.poll(() => workspace.exists('notes/README.md')).toBe(true);
    expect(await workspace.exists('README.md')).toBe(false);
    await expect(treeItem(page, 'README.md')).toHaveAttribute('aria-level', '2');
  });

  test('several selected entries drag together onto the tree root', async ({ page, kiln, workspace }) => {
    await kiln.open(page);
    await expandFolder(page, 'src');
    await treeItem(page, 'app.py').click();
    await treeItem(page, 'util.py').click({ modifiers: [mod] });
    const box = (await fileTree(page).boundingBox())!;
    await dragWithMouse(page, treeItem(page, 'util.py'), { x: box.x + 120, y: box.y + box.height - 30 });
    await expect(treeItem(page, 'util.py')).toHaveAttribute('aria-level', '1');
    expect(await workspace.exists('app.py')).toBe(true);
    expect(await workspace.exists('util.py')).toBe(true);
    expect(await workspace.exists('src/app.py')).toBe(false);
    await expect(treeItem(page, 'app.py')).toHaveAttribute('aria-level', '1');
  });

  test('a folder cannot be dropped into itself or its descendants', async ({ page, kiln, workspace }) => {
    await workspace.write('outer/inner/deep.txt', 'x');
    await kiln.open(page);
    await treeItem(page, 'outer').click();
    await dragWithMouse(page, treeItem(page, 'outer'), treeItem(page, 'inner'), { release: false });
    await expect(treeItem(page, 'inner')).toHaveAttribute('data-drop', 'invalid');
    await expect(fileTree(page)).toHaveAttribute('data-drop-valid', 'false');
    await page.screenshot({ path: test.info().outputPath('kiln-drag-invalid.png') });
    await page.mouse.up();
    await expect(fileTree(page)).not.toHaveAttribute('data-drop-valid');
    // A drop sends its move at once; a file written afterwards from outside reaches the tree through main
    // after that move would have run, so by the time it shows, a refused drop has had every chance to move.
    await workspace.write('after-the-drop.txt', 'x');
    await expect(treeItem(page, 'after-the-drop.txt')).toBeVisible();
    expect(await workspace.exists('outer/inner/deep.txt')).toBe(true);
    expect(existsSync(workspace.abs('outer/inner/outer'))).toBe(false);
    await expect(treeItem(page, 'inner')).toHaveAttribute('aria-level', '2');
    await expect(page.getByRole('alert')).toHaveCount(0);
  });

  test('dropping onto an existing name: Replace', async ({ page, kiln, workspace }) => {
    await workspace.write('notes/README.md', 'old notes readme\n');
    await kiln.open(page);
    await dragWithMouse(page, treeItem(page, 'README.md'), treeItem(page, 'notes'));
    const dialog = page.getByRole('dialog');
    await expect(dialog).toContainText('already exists');
    await dialog.getByRole('button', { name: 'Replace' }).click();
    // Replace sets the old file aside before the new one takes its name: for a moment there is none.
    await expect.poll(() => workspace.read('notes/README.md').catch(() => '')).toContain('Fixture workspace');
    expect(await workspace.exists('README.md')).toBe(false);
  });

  test('dropping onto an existing name: Keep both', async ({ page, kiln, workspace }) => {
    await workspace.write('notes/README.md', 'old notes readme\n');
    await kiln.open(page);
    await dragWithMouse(page, treeItem(page, 'README.md'), treeItem(page, 'notes'));
    await page.getByRole('dialog').getByRole('button', { name: 'Keep both' }).click();
    await expect.poll(() => workspace.exists('notes/README copy.md')).toBe(true);
    expect(await workspace.read('notes/README.md')).toBe('old notes readme\n');
    expect(await workspace.read('notes/README copy.md')).toContain('Fixture workspace');
    await expect(treeItem(page, 'README copy.md')).toBeVisible();
  });

  test('dropping onto an existing name: Cancel', async ({ page, kiln, workspace }) => {
    await workspace.write('notes/README.md', 'old notes readme\n');
    await kiln.open(page);
    await dragWithMouse(page, treeItem(page, 'README.md'), treeItem(page, 'notes'));
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    await expect(page.getByRole('dialog')).toHaveCount(0);
    expect(await workspace.read('notes/README.md')).toBe('old notes readme\n');
    expect(await workspace.exists('README.md')).toBe(true);
    await expect(treeItem(page, 'README.md')).toHaveAttribute('aria-level', '1');
  });

  test('hovering a collapsed folder during a drag expands it', async ({ page, kiln, workspace }) => {
    await workspace.write('notes/sub/keep.txt', 'k');
    await kiln.open(page);
    await treeItem(page, 'notes').click();
    await treeItem(page, 'sub').click(); // expand, then
    await treeItem(page, 'sub').click(); // collapse again
    // Held over the closed folder, it springs open.
    await dragWithMouse(page, treeItem(page, 'README.md'), treeItem(page, 'sub'), { release: false });
    await expect(treeItem(page, 'sub')).toHaveAttribute('aria-expanded', 'true');
    await expect(treeItem(page, 'keep.txt')).toBeVisible();
    await page.mouse.up();
    await expect.poll(() => workspace.exists('notes/sub/README.md')).toBe(true);
  });

  test('dragging near the bottom edge scrolls the tree', async ({ page, kiln, workspace }) => {
    for (let i = 0; i < 120; i++) await workspace.write(`many/file-${String(i).padStart(3, '0')}.txt`, '');
    await kiln.open(page);
    await treeItem(page, 'many').click();
    const tree = fileTree(page);
    const box = (await tree.boundingBox())!;
    await dragWithMouse(
      page,
      treeItem(page, 'README.md').or(treeItem(page, 'data')).first(),
      { x: box.x + 100, y: box.y + box.height - 6 },
      { release: false },
    );
    await expect.poll(() => tree.evaluate((el) => el.scrollTop)).toBeGreaterThan(100);
    await page.keyboard.press('Escape');
    await page.mouse.up();
  });

  test('Ctrl/Cmd+Z undoes the last move, rename and paste', async ({ page, kiln, workspace }) => {
    await kiln.open(page);
    await dragWithMouse(page, treeItem(page, 'README.md'), treeItem(page, 'notes'));
    await expect(treeItem(page, 'README.md')).toHaveAttribute('aria-level', '2');
    expect(await workspace.exists('notes/README.md')).toBe(true);
    await fileTree(page).focus();
    await page.keyboard.press(`${mod}+z`);
    await expect.poll(() => workspace.exists('README.md')).toBe(true);
    expect(await workspace.exists('notes/README.md')).toBe(false);
    await expect(treeItem(page, 'README.md')).toHaveAttribute('aria-level', '1');

    await treeItem(page, 'README.md').click();
    await page.keyboard.press('F2');
    await page.keyboard.type('RENAMED');
    await page.keyboard.press('Enter');
    await expect(treeItem(page, 'RENAMED.md')).toBeVisible();
    expect(await workspace.exists('RENAMED.md')).toBe(true);
    await page.keyboard.press(`${mod}+z`);
    await expect.poll(() => workspace.exists('README.md')).toBe(true);
    expect(await workspace.exists('RENAMED.md')).toBe(false);

    await treeItem(page, 'README.md').click();
    await page.keyboard.press(`${mod}+c`);
    await page.keyboard.press(`${mod}+v`);
    await expect(treeItem(page, 'README copy.md')).toBeVisible();
    expect(await workspace.exists('README copy.md')).toBe(true);
    await page.keyboard.press(`${mod}+z`);
    await expect.poll(() => workspace.exists('README copy.md')).toBe(false);
    await expect(treeItem(page, 'README copy.md')).toHaveCount(0);
  });
});

test.describe('tree behaviour', () => {
  test('keyboard: arrows, Enter, Home/End and type-to-find', async ({ page, kiln }) => {
    await kiln.open(page);
    const tree = fileTree(page);
    await treeItem(page, 'data').click();
    await expect(treeItem(page, 'data')).toHaveAttribute('aria-expanded', 'true');
    await page.keyboard.press('ArrowLeft');
    await expect(treeItem(page, 'data')).toHaveAttribute('aria-expanded', 'false');
    await page.keyboard.press('ArrowRight');
    await expect(treeItem(page, 'data')).toHaveAttribute('aria-expanded', 'true');
    // The folder's rows arrive with its listing; the operator moves down once they see them.
    await expect(treeItem(page, 'sample.csv')).toBeVisible();
    await page.keyboard.press('ArrowDown');
    await expect(treeItem(page, 'sample.csv')).toHaveAttribute('aria-selected', 'true');
    await page.keyboard.press('Enter');
    await expect(page.getByRole('tab', { name: 'sample.csv' })).toBeVisible();
    await tree.focus();
    await page.keyboard.press('End');
    await expect(treeItem(page, 'README.md')).toHaveAttribute('aria-selected', 'true');
    await page.keyboard.press('Home');
    await expect(treeItem(page, 'data')).toHaveAttribute('aria-selected', 'true');
    await page.keyboard.type('no');
    await expect(treeItem(page, 'notes')).toHaveAttribute('aria-selected', 'true');
    await page.keyboard.press('ArrowUp');
    await expect(treeItem(page, 'sample.csv')).toHaveAttribute('aria-selected', 'true');
    await expect(tree).toHaveAttribute('aria-activedescendant', /treeitem-/);
  });

  test('Show hidden files toggles dotfiles and the choice survives a reload', async ({ page, kiln }) => {
    await kiln.open(page);
    const toggle = page.getByRole('button', { name: 'Show hidden files' });
    await expect(toggle).toHaveAttribute('aria-pressed', 'false');
    await expect(treeItem(page, '.hidden-config')).toHaveCount(0);
    await toggle.click();
    await expect(toggle).toHaveAttribute('aria-pressed', 'true');
    await expect(treeItem(page, '.hidden-config')).toBeVisible();
    await page.reload();
    await expect(treeItem(page, '.hidden-config')).toBeVisible();
    await page.getByRole('button', { name: 'Show hidden files' }).click();
    await expect(treeItem(page, '.hidden-config')).toHaveCount(0);
  });

  test('changes by other programs appear at once and flash', async ({ page, kiln, workspace }) => {
    await kiln.open(page);
    await treeItem(page, 'notes').click();
    await expect(treeItem(page, 'todo.txt')).toBeVisible();
    const flashes = await recordFlashes(page);
    await workspace.write('notes/todo.txt', 'changed elsewhere\n');
    await expect.poll(flashes).toContainEqual({
      path: 'notes/todo.txt',
      flash: 'flash',
      title: expect.stringMatching(/^notes\/todo\.txt — (created|updated) by another program$/),
    });
    await workspace.write('notes/new.txt', 'n');
    await expect(treeItem(page, 'new.txt')).toBeVisible();
  });

  test("the agent's new files keep a badge until opened; updates flash; both name who made them", async ({
    page,
    kiln,
    workspace,
  }) => {
    await kiln.open(page);
    await treeItem(page, 'notes').click();
    // Another client of the same host calls the agent's verbs, as an agent session would.
    const callVerb = (verb: string, args: Record<string, unknown>) =>
      page.evaluate(
        ({ origin, token, verb, args }) =>
          new Promise<string>((resolve) => {
            const socket = new WebSocket(`${origin.replace('http', 'ws')}/ws`);
            // The token is the socket's first message; requests may follow it at once.
            socket.onopen = () => {
              socket.send(JSON.stringify({ auth: token }));
              socket.send(JSON.stringify({ id: 1, channel: 'verbs.call', args: { verb, args } }));
            };
            socket.onmessage = (m) => {
              const frame = JSON.parse(String(m.data));
              if (frame.id === 1) {
                socket.close();
                resolve(JSON.stringify(frame));
              }
            };
          }),
        { origin: kiln.origin, token: kiln.token, verb, args },
      );
    await expect(treeItem(page, 'todo.txt')).toBeVisible();
    const flashes = await recordFlashes(page);
    expect(await callVerb('write-file', { path: 'notes/from-agent.md', content: '# hi\n' })).toContain('"ok":true');
    const row = treeItem(page, 'from-agent.md');
    await expect(row).toHaveAttribute('data-origin', 'agent');
    await expect.poll(flashes).toContainEqual({
      path: 'notes/from-agent.md',
      flash: 'flash-agent',
      title: 'notes/from-agent.md — created by the agent; new until you open it',
    });
    const badge = row.locator('.new-mark');
    await expect(badge).toHaveAttribute('data-letter', 'N');
    await expect(badge).toHaveAttribute('title', 'Created by the agent; new until you open it');
    await expect(row).toHaveAttribute('title', 'notes/from-agent.md — created by the agent; new until you open it');
    // The flash passes; the badge stays until the operator opens the file.
    await expect(row).not.toHaveClass(/flash-agent/);
    await expect(badge).toBeVisible();
    await page.screenshot({ path: test.info().outputPath('kiln-agent-new.png') });
    await row.click();
    await expect(page.getByRole('tab', { name: /from-agent\.md/ })).toBeVisible();
    await expect(badge).toHaveCount(0);
    await expect(row).toHaveAttribute('title', 'notes/from-agent.md');

    // An update by the agent flashes in place, with no badge.
    expect(
      await callVerb('edit-file', { path: 'notes/from-agent.md', mode: 'overwrite', content: '# hello\n' }),
    ).toContain('"ok":true');
    await expect.poll(flashes).toContainEqual({
      path: 'notes/from-agent.md',
      flash: 'flash-agent',
      title: 'notes/from-agent.md — updated by the agent',
    });
    await expect(badge).toHaveCount(0);
    expect(await workspace.read('notes/from-agent.md')).toBe('# hello\n');

    // A change by another program is not the agent's: it flashes, and says so.
    await workspace.write('notes/todo.txt', 'external\n');
    await expect.poll(flashes).toContainEqual({
      path: 'notes/todo.txt',
      flash: 'flash',
      title: expect.stringMatching(/^notes\/todo\.txt — (created|updated) by another program$/),
    });
    await expect(treeItem(page, 'todo.txt').locator('.new-mark')).toHaveCount(0);
  });

  test('a folder of 20,000 files renders only the visible rows and scrolls to the end', async ({
    page,
    kiln,
    workspace,
  }) => {
    await mkdir(workspace.abs('big'));
    for (let i = 0; i < 20_000; i += 500) {
      await Promise.all(
        Array.from({ length: 500 }, (_, j) =>
          writeFile(workspace.abs(`big/f${String(i + j).padStart(5, '0')}.txt`), ''),
        ),
      );
    }
    await kiln.open(page);
    await treeItem(page, 'big').click();
    await expect(treeItem(page, 'f00000.txt')).toBeVisible();
    expect(await fileTree(page).getByRole('treeitem').count()).toBeLessThan(120);
    // The first screen paints before the rest of the folder is listed; the folder stays busy until then.
    await expect(treeItem(page, 'big')).not.toHaveAttribute('aria-busy');
    await page.keyboard.press('End');
    await expect(treeItem(page, 'README.md')).toBeVisible();
    // Up past README.md's neighbours: src/ (open, with two files), notes/ and data/.
    for (let i = 0; i < 6; i++) await page.keyboard.press('ArrowUp');
    await expect(treeItem(page, 'f19999.txt')).toHaveAttribute('aria-selected', 'true');
  });

  test('copying a large folder shows progress and Cancel leaves no half-copied folder', async ({
    page,
    kiln,
    workspace,
  }) => {
    await mkdir(workspace.abs('bulk'));
    // Enough files that the copy outlasts the progress toast's short delay even on a fast disk.
    for (let i = 0; i < 30_000; i += 1000) {
      await Promise.all(
        Array.from({ length: 1000 }, (_, j) => writeFile(workspace.abs(`bulk/item-${i + j}.bin`), Buffer.alloc(64, 7))),
      );
    }
    await kiln.open(page);
    await treeItem(page, 'bulk').click({ button: 'right' });
    await page.getByRole('menuitem', { name: 'Copy', exact: true }).click();
    const box = (await fileTree(page).boundingBox())!;
    await page.mouse.click(box.x + 100, box.y + box.height - 40, { button: 'right' });
    await page.getByRole('menuitem', { name: 'Paste' }).click();
    const progress = page.getByRole('status').filter({ hasText: 'Copying bulk' });
    await expect(progress).toBeVisible();
    await page.screenshot({ path: test.info().outputPath('kiln-progress.png') });
    await progress.getByRole('button', { name: 'Cancel' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'cancelled' })).toBeVisible();
    const names = readdirSync(workspace.root);
    expect(names.filter((n) => n.startsWith('bulk'))).toEqual(['bulk']);
    expect(names.some((n) => n.startsWith('.kiln-'))).toBe(false);
  });

  test('folders first, open ones showing their files one level in, dotfiles hidden; a click selects and opens', async ({
    page,
    kiln,
  }) => {
    await kiln.open(page);
    await expandFolder(page, 'src');
    await treeItem(page, 'app.py').click();
    await expect(page.getByRole('tab', { name: 'app.py' })).toHaveAttribute('aria-selected', 'true');
    await treeItem(page, 'data').click();
    const rows = fileTree(page).getByRole('treeitem');
    await expect(rows).toHaveText(['data', 'sample.csv', 'notes', 'src', 'app.py', 'util.py', 'README.md']);
    await expect(treeItem(page, 'data')).toHaveAttribute('aria-expanded', 'true');
    await expect(treeItem(page, 'data')).toHaveAttribute('aria-selected', 'true');
    await expect(treeItem(page, 'notes')).toHaveAttribute('aria-expanded', 'false');
    await expect(treeItem(page, 'sample.csv')).toHaveAttribute('aria-level', '2');
    await expect(treeItem(page, 'app.py')).toHaveAttribute('aria-level', '2');
    await expect(treeItem(page, 'README.md')).toHaveAttribute('aria-level', '1');
    await page.screenshot({ path: test.info().outputPath('kiln-tree.png') });
  });
});

test('Shift-click selects a range; Delete names how many entries go', async ({ page, kiln, workspace }) => {
  await kiln.open(page);
  await treeItem(page, 'data').click();
  await treeItem(page, 'data').click(); // collapse, stay selected
  await treeItem(page, 'src').click({ modifiers: ['Shift'] });
  for (const name of ['data', 'notes', 'src'])
    await expect(treeItem(page, name)).toHaveAttribute('aria-selected', 'true');
  await expect(treeItem(page, 'README.md')).toHaveAttribute('aria-selected', 'false');
  await page.keyboard.press('Delete');
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByRole('heading')).toHaveText('Delete 3 items?');
  await expect(dialog).toContainText('4 files');
  await dialog.getByRole('button', { name: 'Delete' }).click();
  await expect(treeItem(page, 'src')).toHaveCount(0);
  for (const name of ['data', 'notes', 'src']) expect(existsSync(workspace.abs(name))).toBe(false);
  expect(await workspace.exists('README.md')).toBe(true);
});

import { theirProjectConfig } from '../test-support/untrusted-config';
import { expect, test } from './support/fixtures';
import { trustFolderFrom } from './support/ui';

test.use({
  trusted: false,
  fixtureFiles: {
    'README.md': '# Cloned project\n',
    '.kiln/config.yaml': theirProjectConfig({ jupyterCommand: '/nonexistent/their-jupyter', agent: true }),
  },
});

test('an untrusted folder asks once, says what it withholds, remembers "Trust", and the palette revokes it', async ({
  page,
  kiln,
}) => {
  await kiln.open(page);
  const dialog = page.getByRole('dialog', { name: 'Trust this folder?' });
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText('jupyter.command');
  await expect(dialog).toContainText('models.theirs');
  await expect(dialog.getByRole('button', { name: 'Trust', exact: true })).toBeVisible();
  await page.screenshot({ path: test.info().outputPath('trust-dialog.png') });

  await dialog.getByRole('button', { name: "Don't trust" }).click();
  await expect(dialog).toBeHidden();
  const banner = page.getByRole('status', { name: 'Restricted mode' });
  await expect(banner).toContainText('jupyter.command');

  await trustFolderFrom(page, banner);
  await expect(banner).toBeHidden();

  // Remembered: a reload (on the token the page keeps) neither asks nor restricts.
  await page.reload();
  await expect(page.getByRole('tree', { name: 'Files' })).toBeVisible();
  await expect(page.getByRole('status', { name: 'Restricted mode' })).toHaveCount(0);
  await expect(page.getByRole('dialog')).toHaveCount(0);

  // Revocable from the command palette: the bar comes back.
  await page.keyboard.press(`${process.platform === 'darwin' ? 'Meta' : 'Control'}+Shift+p`);
  const palette = page.getByRole('dialog', { name: 'Command Palette' });
  await palette.getByRole('combobox', { name: 'Command Palette' }).fill('revoke trust');
  await expect(palette.getByRole('option').first()).toHaveAccessibleName('Revoke Trust in This Folder');
  await palette.getByRole('combobox', { name: 'Command Palette' }).press('Enter');
  await expect(page.getByRole('status', { name: 'Restricted mode' })).toContainText('jupyter.command');
});

test("the assistants say the project's models wait for trust, and their button trusts the folder", async ({
  page,
  kiln,
}) => {
  await kiln.open(page);
  await page.getByRole('dialog', { name: 'Trust this folder?' }).getByRole('button', { name: "Don't trust" }).click();

  const edit = page.getByRole('complementary', { name: 'Edit assistant' });
  const editWithheld = edit.getByRole('region', { name: 'Models withheld' });
  await expect(editWithheld).toContainText('The edit assistant waits for trust');
  await expect(editWithheld).toContainText('withheld until you trust the folder');
  // Not the generic "turn it on" hint: the config already names a model.
  await expect(edit.getByLabel('Config snippet')).toHaveCount(0);
  await expect(edit.getByRole('textbox', { name: 'Message' })).toHaveAttribute(
    'placeholder',
    'Trust this folder to use its models',
  );

  await page.getByRole('tab', { name: 'Agent' }).click();
  const agent = page.getByRole('complementary', { name: 'Agent' });
  await expect(agent.getByRole('region', { name: 'Models withheld' })).toContainText('The agent waits for trust');
  await expect(agent.getByLabel('Config snippet')).toHaveCount(0);
  await page.screenshot({ path: test.info().outputPath('agent-models-withheld.png') });

  await trustFolderFrom(page, agent);
  await expect(page.getByRole('status', { name: 'Restricted mode' })).toBeHidden();
  await expect(agent.getByRole('region', { name: 'Models withheld' })).toHaveCount(0);
  await expect(agent.getByRole('textbox', { name: 'Message' })).toBeEnabled();
  await page.getByRole('tab', { name: 'Edit' }).click();
  await expect(edit.getByRole('region', { name: 'Models withheld' })).toHaveCount(0);
});

test('the page drops the token from its address and keeps working on reload', async ({ page, kiln }) => {
  await kiln.open(page);
  expect(page.url()).not.toContain('token');
  expect(page.url()).toBe(`${kiln.origin}/`);
  await page.reload();
  await expect(page.getByRole('tree', { name: 'Files' })).toBeVisible();
  await expect(page.getByRole('treeitem', { name: 'README.md' })).toBeVisible();
});

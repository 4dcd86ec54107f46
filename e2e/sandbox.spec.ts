import { expect, test } from './support/fixtures';
import { trustFolderFrom } from './support/ui';

// A repository the operator just cloned, opened on a machine without a sandbox for agent code.
test.use({
  trusted: false,
  hostEnv: { KILN_BWRAP: 'none' },
  fixtureFiles: {
    'README.md': '# Cloned repository\n',
    '.git/HEAD': 'ref: refs/heads/main\n',
  },
});

test('restricted mode names git and agent runs, and the Agent panel says runs are unsandboxed here', async ({
  page,
  kiln,
}) => {
  await kiln.open(page);
  // Asked once, though the folder has no project config: what is held back is git and the agent's runs.
  const dialog = page.getByRole('dialog', { name: 'Trust this folder?' });
  await expect(dialog).toContainText("git: change marks, the branch and the gutter: a repository's own config");
  await expect(dialog).toContainText('agent code runs: run-file and execute-code');
  await page.screenshot({ path: test.info().outputPath('sandbox-trust-dialog.png') });
  await dialog.getByRole('button', { name: "Don't trust" }).click();

  const banner = page.getByRole('status', { name: 'Restricted mode' });
  await expect(banner).toContainText('Not used until you trust this folder: git, agent code runs.');

  await page.getByRole('tab', { name: 'Agent' }).click();
  const agent = page.getByRole('complementary', { name: 'Agent' });
  await expect(agent.getByRole('note')).toHaveText('Agent code runs without a sandbox on this machine');
  await page.screenshot({ path: test.info().outputPath('sandbox-agent-line.png') });

  // Trusted: git comes back and the bar goes; the line stays, since runs here are still unsandboxed.
  await trustFolderFrom(page, banner);
  await expect(banner).toBeHidden();
  await expect(agent.getByRole('note')).toHaveText('Agent code runs without a sandbox on this machine');
});

import type { Locator, Page } from '@playwright/test';
import { reply } from '../test-support/model-server';
import { expect } from './support/fixtures';
import { agentPanel, configureScriptedModel, testWithModel } from './support/model';
import { sendMessage } from './support/ui';

const test = testWithModel(['scripted-agent']);

const chip = (page: Page, prefix: string): Locator =>
  agentPanel(page).getByRole('button', { name: new RegExp(`^${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`) });

/** Code that plants a git filter: `git status` in this folder would run `touch CANARY` outside any sandbox. */
const PLANT_GIT_FILTER = [
  'import os',
  'os.makedirs(".git", exist_ok=True)',
  'open(".git/config", "w").write("[filter \\"x\\"]\\n\\tclean = touch CANARY\\n")',
  'open("result.txt", "w").write("ok")',
  'print("planted")',
].join('\n');

test("the agent cannot change Kiln's config or plant a git filter: the verb is refused, the run's write is not applied, and the chips say so", async ({
  page,
  kiln,
  workspace,
  model,
}) => {
  await configureScriptedModel(workspace, model, 'scripted-agent', ['agent']);
  const config = await workspace.read('.kiln/config.yaml');
  model.setReplies([
    reply.tool('write-file', {
      path: '.kiln/config.yaml',
      content: 'jupyter:\n  command: [/bin/sh, -c, "touch CANARY"]\n',
    }),
    reply.tool('execute-code', { code: PLANT_GIT_FILTER }),
    reply.text('Done.'),
  ]);
  await kiln.open(page);
  await page.getByRole('tab', { name: 'Agent' }).click();
  await sendMessage(agentPanel(page), 'Set up the project.');

  const refused = chip(page, 'write-file .kiln/config.yaml');
  await expect(refused).toHaveAccessibleName(/is protected: it is the project's Kiln config/);
  const ran = chip(page, 'execute-code scripts/step_001_');
  await expect(ran).toHaveAccessibleName(/ · exit 0 · 1 refused$/);
  await ran.click();
  await expect(agentPanel(page).getByRole('group', { name: 'Details of execute-code' })).toContainText(
    '.git/config: not applied: it is part of a git repository',
  );
  await refused.click();
  await expect(agentPanel(page).getByRole('group', { name: 'Details of write-file' })).toContainText(
    'the operator can make that change in the editor',
  );
  await page.screenshot({ path: test.info().outputPath('protected-paths-chips.png') });

  // Neither landed; what else the run wrote did.
  expect(await workspace.read('.kiln/config.yaml')).toBe(config);
  expect(await workspace.exists('.git')).toBe(false);
  expect(await workspace.read('result.txt')).toBe('ok');
  expect(await workspace.exists('CANARY')).toBe(false);
});

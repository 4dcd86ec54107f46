import type { Locator, Page } from '@playwright/test';
import { AGENT_SNIPPET } from '../shared/contract';
import { expect } from './support/fixtures';
import { reply } from '../test-support/model-server';
import { configureScriptedModel, testWithModel } from './support/model';
import { expandFolder, fileTree, sendMessage, treeItem } from './support/ui';

/** Each test gets its own scripted model server on loopback (real HTTP, real AI SDK client path). */
const test = testWithModel(['scripted-agent']);

const LOADERS = `"""Loads the fixture's sample data."""
import csv


def load_rows(path="data/sample.csv"):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


if __name__ == "__main__":
    print("rows", len(load_rows()))
`;

function panel(page: Page): Locator {
  return page.getByRole('complementary', { name: 'Agent' });
}

async function openAgentTab(page: Page): Promise<void> {
  await page.getByRole('tab', { name: 'Agent' }).click();
  await expect(page.getByRole('tab', { name: 'Agent' })).toHaveAttribute('aria-selected', 'true');
  await expect(panel(page)).toBeVisible();
}

function ask(page: Page, text: string): Promise<void> {
  return sendMessage(panel(page), text);
}

/** A chip is a button whose name starts with the verb. */
function chip(page: Page, prefix: string): Locator {
  return panel(page).getByRole('button', { name: new RegExp(`^${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`) });
}

test.describe('agent session', () => {
  test('without an agent: block the panel shows the config snippet and cannot send', async ({ page, kiln }) => {
    await kiln.open(page);
    await openAgentTab(page);
    const snippet = panel(page).getByLabel('Config snippet');
    await expect(snippet).toBeVisible();
    expect(await snippet.textContent()).toBe(AGENT_SNIPPET);
    await expect(panel(page).getByRole('textbox', { name: 'Message' })).toBeDisabled();
    await expect(panel(page).getByRole('button', { name: 'Send', exact: true })).toBeDisabled();
    await expect(panel(page).getByRole('button', { name: 'Stop', exact: true })).toBeDisabled();
    await expect(panel(page).getByRole('button', { name: 'Clear', exact: true })).toBeDisabled();
    await page.screenshot({ path: test.info().outputPath('agent-empty.png') });
  });

  test('writing the agent: block enables the panel without a reload', async ({ page, kiln, workspace, model }) => {
    await kiln.open(page);
    await openAgentTab(page);
    await expect(panel(page).getByLabel('Config snippet')).toBeVisible();
    await configureScriptedModel(workspace, model, 'scripted-agent', ['agent']);
    await expect(panel(page).getByRole('textbox', { name: 'Message' })).toBeEnabled();
    await expect(panel(page).getByLabel('Config snippet')).toHaveCount(0);
    model.setReplies([reply.text('Hello from the agent.')]);
    await ask(page, 'hi');
    await expect(panel(page).getByText('Hello from the agent.')).toBeVisible();
  });

  test('the agent writes a module and runs it: chips in the transcript, the file in the tree', async ({
    page,
    kiln,
    workspace,
    model,
  }) => {
    await configureScriptedModel(workspace, model, 'scripted-agent', ['agent']);
    model.setReplies([
      reply.tool('write-file', { path: 'src/loaders.py', content: LOADERS }, 'I will put a reusable loader in `src/`.'),
      reply.tool('run-file', { path: 'src/loaders.py' }),
      reply.text('Done: `src/loaders.py` loads the sample; it has 2 rows.'),
    ]);
    await kiln.open(page);
    await openAgentTab(page);
    await expect(panel(page).getByText('scripted', { exact: false }).first()).toBeVisible();

    await ask(page, 'Write a loader for data/sample.csv and run it.');
    await expect(panel(page).getByText('Write a loader for data/sample.csv and run it.')).toBeVisible();

    const written = chip(page, 'write-file src/loaders.py');
    await expect(written).toBeVisible();
    await expect(written).toHaveAccessibleName(`write-file src/loaders.py · ${Buffer.byteLength(LOADERS)} bytes · new`);
    await expect(chip(page, 'run-file src/loaders.py')).toHaveAccessibleName('run-file src/loaders.py · exit 0');
    await expect(panel(page).getByText('it has 2 rows')).toBeVisible();

    // The file appears in the tree (marked as the agent's by the explorer); the run is logged in scripts/.
    await expandFolder(page, 'src');
    await expect(treeItem(page, 'loaders.py')).toBeVisible();
    await expect(fileTree(page).getByRole('treeitem', { name: 'scripts', exact: true })).toBeVisible();
    expect(await workspace.read('src/loaders.py')).toBe(LOADERS);
    expect(await workspace.exists('scripts/step_001_run_loaders.py')).toBe(true);

    // The transcript never carries the file body; a chip expands to short previews only.
    await expect(panel(page).getByText('def load_rows', { exact: false })).toHaveCount(0);
    await chip(page, 'run-file src/loaders.py').click();
    await expect(chip(page, 'run-file src/loaders.py')).toHaveAttribute('aria-expanded', 'true');
    await expect(panel(page).getByRole('group', { name: 'Details of run-file' })).toContainText('rows 2');
    await written.click();
    const details = panel(page).getByRole('group', { name: 'Details of write-file' });
    await expect(details).toContainText('"""Loads the fixture');
    await expect(details).toContainText('more characters');
    await page.screenshot({ path: test.info().outputPath('agent-chips.png') });

    // The module opens from its chip.
    await details.getByRole('button', { name: 'Open src/loaders.py' }).click();
    await expect(page.getByRole('tab', { name: 'loaders.py', exact: true })).toBeVisible();

    // Clear deletes the session.
    await panel(page).getByRole('button', { name: 'Clear', exact: true }).click();
    await expect(chip(page, 'write-file')).toHaveCount(0);
    await expect(panel(page).getByText('Ask for work across the workspace', { exact: false })).toBeVisible();
  });

  test('a message sent while the agent works is queued; Stop ends the run', async ({
    page,
    kiln,
    workspace,
    model,
  }) => {
    await configureScriptedModel(workspace, model, 'scripted-agent', ['agent']);
    model.setReplies([reply.slow('thinking out loud '.repeat(200), 60), reply.text('second reply')]);
    await kiln.open(page);
    await openAgentTab(page);
    await ask(page, 'first');
    const stop = panel(page).getByRole('button', { name: 'Stop', exact: true });
    await expect(stop).toBeEnabled();
    await expect(panel(page).locator('[data-streaming="true"]')).toBeVisible();
    await ask(page, 'second');
    await expect(panel(page).getByText('queued', { exact: true })).toBeVisible();
    await page.screenshot({ path: test.info().outputPath('agent-queued.png') });
    await stop.click();
    await expect(panel(page).getByText('Stopped', { exact: true })).toBeVisible();
    await expect(panel(page).getByText('Not sent: stopped before its turn')).toBeVisible();
    await expect(stop).toBeDisabled();
    expect(model.chatRequests).toHaveLength(1);
  });
});

import type { Locator, Page } from '@playwright/test';
import { ModelServer } from '../../test-support/model-server';
import { expect, test as base, type TempWorkspace } from './fixtures';
import { cellOf, openNotebook } from './notebook';

/** The e2e `test` with a `model` fixture: a scripted model server serving these model names, fresh per test. */
export function testWithModel(models: string[]) {
  return base.extend<{ model: ModelServer }>({
    model: async ({}, use) => {
      const server = await ModelServer.start({ models });
      await use(server);
      await server.close();
    },
  });
}

/**
 * Points the workspace's config at the scripted server: one model named `scripted` (the server's `served` model)
 * for each feature listed; `extra` is appended as more config.
 */
export function configureScriptedModel(
  workspace: TempWorkspace,
  model: ModelServer,
  served: string,
  features: readonly ('file_editing' | 'agent')[],
  extra = '',
): Promise<void> {
  const uses = features.map((feature) => `${feature}:\n  model: scripted\n`).join('');
  return workspace.write(
    '.kiln/config.yaml',
    `models:\n  scripted:\n    provider: openai-compatible\n    base_url: ${model.url}\n    model: ${served}\n${uses}${extra}`,
  );
}

/** The Agent panel. */
export function agentPanel(page: Page): Locator {
  return page.getByRole('complementary', { name: 'Agent' });
}

/** The scripted Agent configured, Kiln opened, and `file` open as a notebook showing its cell `cells`. */
export async function openNotebookForAgent(
  page: Page,
  {
    kiln,
    workspace,
    model,
  }: { kiln: { open(page: Page): Promise<void> }; workspace: TempWorkspace; model: ModelServer },
  file: string,
  cells: number,
): Promise<Locator> {
  await configureScriptedModel(workspace, model, 'scripted-agent', ['agent']);
  await kiln.open(page);
  const nb = await openNotebook(page, file);
  await expect(cellOf(nb, cells)).toBeVisible();
  return nb;
}

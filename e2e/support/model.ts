import { ModelServer } from '../../test-support/model-server';
import { test as base, type TempWorkspace } from './fixtures';

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

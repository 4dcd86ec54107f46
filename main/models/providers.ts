import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModel } from 'ai';
import { KilnError } from '../../shared/errors';
import type { ModelConfig } from '../config';

/** Builds the AI SDK model for a configured alias. The key is read from the env var the config names, never from the file. */
export function createLanguageModel(config: ModelConfig, env: NodeJS.ProcessEnv = process.env): LanguageModel {
  let apiKey: string | undefined;
  if (config.apiKeyEnv) {
    apiKey = env[config.apiKeyEnv];
    if (!apiKey) {
      throw new KilnError(
        'E_NO_MODEL',
        `Model '${config.alias}' reads its API key from the environment variable ${config.apiKeyEnv}, which is not set.`,
      );
    }
  }
  switch (config.provider) {
    case 'openai-compatible':
      return createOpenAICompatible({ name: `kiln-${config.alias}`, baseURL: config.baseUrl ?? '', apiKey }).chatModel(
        config.model,
      );
    case 'anthropic':
      return createAnthropic({ baseURL: config.baseUrl, apiKey })(config.model);
    case 'openai':
      // Chat completions: supported by OpenAI and by every server that imitates it.
      return createOpenAI({ baseURL: config.baseUrl, apiKey }).chat(config.model);
  }
}

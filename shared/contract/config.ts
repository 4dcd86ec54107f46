// Config channels: the project and user config as the UI needs it.
import { z } from 'zod';
import { request } from './define';

/** The `models:` block both assistants' empty states show. */
export const MODELS_SNIPPET = `models:
  smart-generalist:
    provider: openai-compatible
    base_url: http://127.0.0.1:11434/v1
    model: qwen2.5-coder:7b
`;

export const ModelProvider = z.enum(['openai-compatible', 'anthropic', 'openai']);
export type ModelProvider = z.infer<typeof ModelProvider>;

/** Where a block came from: the project's `.kiln/config.yaml` or the user-level config. */
export const ConfigSource = z.enum(['project', 'user']);
export type ConfigSource = z.infer<typeof ConfigSource>;

/** One problem in a config file, located for the UI ("file:line: message"). */
export const ConfigIssue = z.object({
  /** Display path: `.kiln/config.yaml` (workspace-relative) or the user config's absolute path. */
  file: z.string(),
  /** 1-based; absent when the problem has no position (e.g. the file is unreadable). */
  line: z.number().int().optional(),
  column: z.number().int().optional(),
  /** YAML path of the offending key, e.g. `file_editing.model`; '' for the whole file. */
  key: z.string(),
  message: z.string(),
  /** E_CONFIG, or E_OUTSIDE_WORKSPACE for a `config:` reference escaping its folder. */
  code: z.enum(['E_CONFIG', 'E_OUTSIDE_WORKSPACE']),
});
export type ConfigIssue = z.infer<typeof ConfigIssue>;

export const ModelAliasInfo = z.object({
  alias: z.string(),
  provider: ModelProvider,
  model: z.string(),
  baseUrl: z.string().nullable(),
  source: ConfigSource,
});
export type ModelAliasInfo = z.infer<typeof ModelAliasInfo>;

const BlockState = z.object({
  /** True when the block names a model: its presence is the enable flag, there is no default model. */
  enabled: z.boolean(),
  /** The model alias the block names, or null. */
  model: z.string().nullable(),
  source: ConfigSource.nullable(),
  /** The `config:/...` references making up the operator's system prompt, in order. */
  systemPromptRefs: z.array(z.string()),
});

/** The config as the UI needs it. Keys are never included, only the env var names that hold them. */
export const ConfigState = z.object({
  fileEditing: BlockState,
  /** The `agent:` block (the Agent); `tools` null means all verbs. */
  agent: BlockState.extend({ tools: z.array(z.string()).nullable() }),
  models: z.array(ModelAliasInfo),
  /**
   * The first problem of the latest load, or null when the config is valid. While it is set, the
   * last valid config keeps running (or none, if there never was one).
   */
  error: ConfigIssue.nullable(),
  /** Every problem of the latest load (error is issues[0]). */
  issues: z.array(ConfigIssue),
  /** Workspace-relative path of the project config. */
  projectConfigPath: z.string(),
  /** Absolute path of the user-level config, if one is configured. */
  userConfigPath: z.string().nullable(),
});
export type ConfigState = z.infer<typeof ConfigState>;

export const configRequests = {
  /** Config state for the UI (enabled, model alias, error with file/line). */
  'config.get': request(z.object({}), ConfigState),
} as const;

export const configEvents = {
  /** The config was (re)loaded: same shape as `config.get`. */
  'config.changed': ConfigState,
} as const;

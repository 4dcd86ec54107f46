import { z } from 'zod';

/** Environment variable names only: keys never go in the file. */
const EnvVarName = z
  .string()
  .regex(
    /^[A-Za-z_][A-Za-z0-9_]*$/,
    'api_key_env must be the NAME of an environment variable (letters, digits, _), not a key',
  );

/** A `config:/path.md` reference, resolved under the config's own folder (`.kiln/` for the project). */
export const PromptRef = z
  .string()
  .startsWith('config:/', 'system_prompt entries must be config:/ references, e.g. config:/prompts/files.md');

// One ref or a list of them; always a list after parsing.
const PromptRefs = z.union([PromptRef.transform((ref) => [ref]), z.array(PromptRef)]);

export const ModelEntrySchema = z
  .strictObject({
    provider: z.enum(['openai-compatible', 'anthropic', 'openai'], {
      error: 'provider must be one of: openai-compatible, anthropic, openai',
    }),
    base_url: z.url({ error: 'base_url must be a URL such as http://127.0.0.1:11434/v1' }).optional(),
    model: z.string({ error: 'model (the id the server knows) is required' }).min(1, 'model must not be empty'),
    api_key_env: EnvVarName.optional(),
  })
  .superRefine((entry, ctx) => {
    // The hosted providers have a default endpoint; a local server has none.
    if (entry.provider === 'openai-compatible' && !entry.base_url) {
      ctx.addIssue({
        code: 'custom',
        path: ['base_url'],
        message: 'base_url is required for provider openai-compatible',
      });
    }
  });

const ModelAlias = z
  .string({ error: 'model is required: the name of an alias under models:' })
  .min(1, 'model must name an alias under models:');

export const FileEditingSchema = z.strictObject({
  model: ModelAlias,
  system_prompt: PromptRefs.optional(),
});

export const AgentBlockSchema = z.strictObject({
  model: ModelAlias,
  /** The verb allowlist for workspace sessions; absent means all verbs. */
  tools: z.array(z.string().min(1)).optional(),
  system_prompt: PromptRefs.optional(),
});

/** Which Jupyter server notebooks use: a command to start locally, or a running server by URL. */
export const JupyterBlockSchema = z
  .strictObject({
    command: z
      .union([
        z
          .string()
          .min(1)
          .transform((c) => c.split(' ').filter(Boolean)),
        z.array(z.string().min(1)).min(1),
      ])
      .optional(),
    url: z.url({ error: 'jupyter.url must be a URL such as http://127.0.0.1:8888/' }).optional(),
    token_env: EnvVarName.optional(),
  })
  .refine((block) => !(block.command && block.url), {
    message: 'jupyter: set command (a local server) or url (a running one), not both',
  });

/** What the file watcher leaves alone; replaces the defaults (.git, node_modules, __pycache__, .ipynb_checkpoints) whole. */
export const WatchBlockSchema = z.strictObject({
  exclude: z.array(
    z
      .string({ error: 'watch.exclude entries are names or paths such as node_modules or data/raw/**' })
      .min(1, 'watch.exclude entries must not be empty')
      .refine(
        (p) => !p.startsWith('/') && !p.split('/').includes('..'),
        'watch.exclude entries are relative to the workspace (no leading / or ..)',
      ),
    { error: 'watch.exclude must be a list, e.g. [node_modules, data/raw]' },
  ),
});

/** What agent code runs with beyond the sandbox's defaults; needs trust (it opens the network, passes variables). */
export const SandboxBlockSchema = z.strictObject({
  network: z.boolean({ error: 'sandbox.network must be true or false' }).optional(),
  env: z
    .array(
      z
        .string()
        .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'sandbox.env entries are environment variable NAMES (letters, digits, _)'),
    )
    .optional(),
  /** With `network: true`: host loopback TCP ports the run may reach (a local model server); none by default. */
  host_ports: z
    .array(z.number().int().min(1).max(65535), {
      error: 'sandbox.host_ports must be a list of TCP port numbers, e.g. [11434]',
    })
    .optional(),
});

// An empty block (`file_editing:` with nothing under it) reads as null in YAML; treat it as absent.
const optionalBlock = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (v === null ? undefined : v), schema.optional());

export const ConfigFileSchema = z.strictObject({
  models: optionalBlock(z.record(z.string().min(1), ModelEntrySchema)),
  file_editing: optionalBlock(FileEditingSchema),
  agent: optionalBlock(AgentBlockSchema),
  jupyter: optionalBlock(JupyterBlockSchema),
  watch: optionalBlock(WatchBlockSchema),
  sandbox: optionalBlock(SandboxBlockSchema),
});
export type ConfigFile = z.infer<typeof ConfigFileSchema>;

/** The blocks that follow set-not-merge: a project block replaces the user's block whole. */
export const CONFIG_BLOCKS = ['models', 'file_editing', 'agent', 'jupyter', 'watch', 'sandbox'] as const;
export type ConfigBlock = (typeof CONFIG_BLOCKS)[number];

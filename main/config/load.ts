import * as fs from 'node:fs/promises';
import path from 'node:path';
import { isMap, isPair, isScalar, LineCounter, parseDocument, visit, type Document, type Node } from 'yaml';
import type { z } from 'zod';
import type { ConfigIssue, ConfigSource, ModelProvider } from '../../shared/contract';
import { KilnError } from '../../shared/errors';
import { chooseBlocks, type ChosenBlock } from './key-trust';
import { CONFIG_BLOCKS, ConfigFileSchema, type ConfigBlock, type ConfigFile } from './schema';
import { createLogger } from '../log';

const log = createLogger('config.load');

export interface ModelConfig {
  alias: string;
  provider: ModelProvider;
  /** Absent for hosted providers using their default endpoint. */
  baseUrl?: string;
  model: string;
  /** Name of the env var holding the key; the key itself is read only when a run starts. */
  apiKeyEnv?: string;
  source: ConfigSource;
}

export interface PromptedBlock {
  model: string;
  systemPromptRefs: string[];
  /** The referenced files' text, joined by blank lines; '' when there is no system prompt. */
  systemPrompt: string;
  source: ConfigSource;
  /** Where the prompt came from: the user's file when the untrusted project's own is withheld; null without one. */
  systemPromptSource: ConfigSource | null;
}

export interface AgentBlock extends PromptedBlock {
  /** Verb allowlist; null means all verbs. */
  tools: string[] | null;
}

/** A fully validated, resolved config: what the rest of main runs on. */
export interface ResolvedConfig {
  models: Record<string, ModelConfig>;
  fileEditing: PromptedBlock | null;
  agent: AgentBlock | null;
  /** null means `jupyter` on PATH. */
  jupyter: JupyterSetting | null;
  /** Project settings not used because the workspace is not trusted (e.g. `jupyter.command`, `models.local`). */
  withheld: string[];
  /** The watcher's exclude patterns; null means Kiln's defaults. */
  watchExclude: string[] | null;
  /** What local history leaves out: `watch.exclude` of the user or a trusted project, never an untrusted one's. */
  historyExclude: string[] | null;
  /** The `sandbox:` block (the project's only once trusted); null: the defaults (no network, no extra variables). */
  sandbox: { network: boolean; env: string[]; hostPorts: number[] } | null;
}

export interface JupyterSetting {
  command?: string[];
  url?: string;
  /** The environment variable holding the remote server's token. */
  tokenEnv?: string;
}

/** One config file on disk: where it is, where its `config:/` refs resolve, how to name it in errors. */
export interface ConfigFileLocation {
  source: ConfigSource;
  file: string;
  /** The folder `config:/x` resolves under (`<workspace>/.kiln` for the project). */
  refRoot: string;
  /** How errors name the file. */
  displayName: string;
}

interface ParsedFile {
  location: ConfigFileLocation;
  doc: Document;
  lines: LineCounter;
  value: ConfigFile;
}

/** Configs are a few hundred bytes; anything near this size is not one. */
const MAX_CONFIG_BYTES = 1024 * 1024;
/** A config has no reason to repeat an anchor more than a handful of times. */
const MAX_ALIAS_COUNT = 100;
/** How many problems one load reports (each is located in the document). */
const MAX_ISSUES = 20;

export type LoadResult = { ok: true; config: ResolvedConfig } | { ok: false; issues: ConfigIssue[] };

export interface LoadOptions {
  /** Whether the workspace is trusted; the user config always is. */
  projectTrusted: boolean;
}

/** Loads, validates and resolves the user and project configs (either may be missing). */
export async function loadConfig(files: ConfigFileLocation[], options: LoadOptions): Promise<LoadResult> {
  const issues: ConfigIssue[] = [];
  const parsed: ParsedFile[] = [];
  for (const location of files) {
    const result = await parseConfigFile(location);
    if (result === null) continue;
    if ('issues' in result) issues.push(...result.issues);
    else parsed.push(result);
  }
  if (issues.length) return { ok: false, issues };

  const project = parsed.find((p) => p.location.source === 'project');
  const user = parsed.find((p) => p.location.source === 'user');
  const { chosen, withheld, historyExclude } = chooseBlocks(project, user, options.projectTrusted);
  const blockOf = <B extends ConfigBlock>(block: B) =>
    chosen.get(block) as ChosenBlock<ParsedFile, NonNullable<ConfigFile[B]>> | undefined;

  const models: Record<string, ModelConfig> = {};
  const modelsOwner = blockOf('models');
  for (const [alias, entry] of Object.entries(modelsOwner?.value ?? {})) {
    models[alias] = {
      alias,
      provider: entry.provider,
      baseUrl: entry.base_url,
      model: entry.model,
      apiKeyEnv: entry.api_key_env,
      source: modelsOwner!.owner.location.source,
    };
  }

  const resolveBlock = async (block: 'file_editing' | 'agent'): Promise<PromptedBlock | null> => {
    let chosenBlock = blockOf(block);
    // An untrusted project's block that names one of its own (withheld) models falls back to the user's block.
    const named = chosenBlock?.owner === project ? chosenBlock?.value.model : undefined;
    if (named !== undefined && !Object.hasOwn(models, named) && withheld.includes(`models.${named}`)) {
      const mine = user?.value[block];
      chosenBlock = user && mine ? { owner: user, value: mine, keyOwners: {} } : undefined;
      if (chosenBlock) chosen.set(block, chosenBlock);
      else chosen.delete(block);
    }
    if (!chosenBlock) return null;
    const { owner, value } = chosenBlock;
    if (!Object.hasOwn(models, value.model)) {
      const known = Object.keys(models);
      issues.push(
        issueAt(
          owner,
          [block, 'model'],
          `${block}.model '${value.model}' is not an alias under models:` +
            (known.length ? ` (known: ${known.join(', ')})` : ' (no models are configured)'),
        ),
      );
    }
    // The prompt's refs resolve in the file they came from (the user's, where the project's is withheld).
    const promptOwner = chosenBlock.keyOwners.system_prompt ?? owner;
    const refs = value.system_prompt ?? [];
    const texts: string[] = [];
    for (const [i, ref] of refs.entries()) {
      try {
        texts.push(await readConfigRef(promptOwner.location.refRoot, ref));
      } catch (err) {
        const kiln = err instanceof KilnError ? err : new KilnError('E_CONFIG', String(err));
        issues.push(
          issueAt(
            promptOwner,
            [block, 'system_prompt', i],
            kiln.message,
            kiln.code === 'E_OUTSIDE_WORKSPACE' ? 'E_OUTSIDE_WORKSPACE' : 'E_CONFIG',
          ),
        );
      }
    }
    return {
      model: value.model,
      systemPromptRefs: refs,
      systemPrompt: texts.map((t) => t.trimEnd()).join('\n\n'),
      source: owner.location.source,
      systemPromptSource: refs.length ? promptOwner.location.source : null,
    };
  };

  const fileEditing = await resolveBlock('file_editing');
  const agentBase = await resolveBlock('agent');
  const agent: AgentBlock | null = agentBase ? { ...agentBase, tools: blockOf('agent')?.value.tools ?? null } : null;

  const jupyterValue = blockOf('jupyter')?.value;
  const jupyter: JupyterSetting | null = jupyterValue
    ? { command: jupyterValue.command, url: jupyterValue.url, tokenEnv: jupyterValue.token_env }
    : null;

  const watchExclude = blockOf('watch')?.value.exclude ?? null;

  const sandboxValue = blockOf('sandbox')?.value;
  const sandbox = sandboxValue
    ? { network: sandboxValue.network ?? false, env: sandboxValue.env ?? [], hostPorts: sandboxValue.host_ports ?? [] }
    : null;

  if (issues.length) return { ok: false, issues };
  return { ok: true, config: { models, fileEditing, agent, jupyter, withheld, watchExclude, historyExclude, sandbox } };
}

/** Parses and validates one file; null when it does not exist. */
async function parseConfigFile(location: ConfigFileLocation): Promise<ParsedFile | { issues: ConfigIssue[] } | null> {
  let text: string;
  try {
    text = await fs.readFile(location.file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    return {
      issues: [
        {
          file: location.displayName,
          key: '',
          message: `Cannot read the config: ${(err as Error).message}`,
          code: 'E_CONFIG',
        },
      ],
    };
  }
  const fileIssue = (message: string): { issues: ConfigIssue[] } => ({
    issues: [{ file: location.displayName, key: '', message, code: 'E_CONFIG' }],
  });
  if (Buffer.byteLength(text) > MAX_CONFIG_BYTES) {
    return fileIssue(
      `The config is ${Math.round(Buffer.byteLength(text) / 1024)} KiB; Kiln reads configs up to ${MAX_CONFIG_BYTES / 1024} KiB`,
    );
  }
  const lines = new LineCounter();
  // yaml's own duplicate-key check compares every key with every other (quadratic); ours below is a Set per map.
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: false });
  if (doc.errors.length) {
    return {
      issues: doc.errors.slice(0, MAX_ISSUES).map((e) => ({
        file: location.displayName,
        line: lines.linePos(e.pos[0]).line,
        column: lines.linePos(e.pos[0]).col,
        key: '',
        message: `YAML syntax error: ${e.message.split('\n')[0]}`,
        code: 'E_CONFIG' as const,
      })),
    };
  }
  const duplicate = firstDuplicateKey(doc);
  if (duplicate) {
    const pos = duplicate.offset === undefined ? undefined : lines.linePos(duplicate.offset);
    return {
      issues: [
        {
          file: location.displayName,
          line: pos?.line,
          column: pos?.col,
          key: duplicate.key,
          message: `Map keys must be unique: '${duplicate.key}' appears twice`,
          code: 'E_CONFIG',
        },
      ],
    };
  }
  let raw: unknown;
  try {
    // yaml stops expanding aliases past maxAliasCount, so an alias bomb costs a few milliseconds, not memory.
    raw = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) ?? {};
  } catch (err) {
    return fileIssue(`The config expands its aliases (*name) too far to be read: ${(err as Error).message}`);
  }
  const result = ConfigFileSchema.safeParse(raw);
  const partial = { location, doc, lines };
  if (!result.success) return { issues: describeZodIssues(partial, result.error.issues) };
  return { ...partial, value: result.data };
}

function firstDuplicateKey(doc: Document): { key: string; offset?: number } | null {
  let found: { key: string; offset?: number } | null = null;
  visit(doc, {
    Map(_, map) {
      const seen = new Set<unknown>();
      for (const pair of map.items) {
        const key = isScalar(pair.key) ? pair.key.value : pair.key;
        if (seen.has(key)) {
          found = { key: String(key), offset: isScalar(pair.key) ? pair.key.range?.[0] : undefined };
          return visit.BREAK;
        }
        seen.add(key);
      }
      return undefined;
    },
  });
  return found;
}

/**
 * Locating an issue scans its map, so only the first few are located: a file with tens of thousands of unknown
 * keys is reported in linear time, with a count of the rest.
 */
function describeZodIssues(
  file: Pick<ParsedFile, 'location' | 'doc' | 'lines'>,
  zodIssues: z.core.$ZodIssue[],
): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  let total = 0;
  for (const issue of zodIssues) {
    const count = issue.code === 'unrecognized_keys' ? issue.keys.length : 1;
    if (issues.length < MAX_ISSUES) {
      const room = MAX_ISSUES - issues.length;
      issues.push(
        ...describeZodIssue(
          file,
          issue.code === 'unrecognized_keys' ? { ...issue, keys: issue.keys.slice(0, room) } : issue,
        ),
      );
    }
    total += count;
  }
  if (total > issues.length) {
    issues.push({
      file: file.location.displayName,
      key: '',
      message: `…and ${total - issues.length} more problems like these`,
      code: 'E_CONFIG',
    });
  }
  return issues;
}

function describeZodIssue(
  file: Pick<ParsedFile, 'location' | 'doc' | 'lines'>,
  issue: z.core.$ZodIssue,
): ConfigIssue[] {
  const at = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => {
      const where = at.length ? `${at.join('.')}: ` : '';
      const hint = at.length ? '' : ` (known blocks: ${CONFIG_BLOCKS.join(', ')})`;
      return issueAt(file, [...at, key], `${where}unknown key '${key}'${hint}`, 'E_CONFIG', true);
    });
  }
  const keyName = at.join('.');
  return [issueAt(file, at, keyName ? `${keyName}: ${issue.message}` : issue.message)];
}

/** Builds an issue pointing at the deepest node of `at` that exists in the document. */
function issueAt(
  file: Pick<ParsedFile, 'location' | 'doc' | 'lines'>,
  at: Array<string | number>,
  message: string,
  code: ConfigIssue['code'] = 'E_CONFIG',
  pointAtKey = false,
): ConfigIssue {
  const offset = locate(file.doc, at, pointAtKey);
  const pos = offset === undefined ? undefined : file.lines.linePos(offset);
  return {
    file: file.location.displayName,
    line: pos?.line,
    column: pos?.col,
    key: at.join('.'),
    message,
    code,
  };
}

function locate(doc: Document, at: Array<string | number>, pointAtKey: boolean): number | undefined {
  for (let depth = at.length; depth >= 0; depth--) {
    const parentPath = at.slice(0, Math.max(0, depth - 1));
    const last = at[depth - 1];
    if (depth > 0 && (pointAtKey || depth < at.length)) {
      // Point at the key itself (a missing value's parent key, or an unknown key).
      const parent = doc.getIn(parentPath, true) as Node | undefined;
      if (isMap(parent)) {
        const pair = parent.items.find((p) => isPair(p) && isScalar(p.key) && p.key.value === last);
        if (pair && isScalar(pair.key) && pair.key.range) return pair.key.range[0];
      }
    }
    const node = (depth === 0 ? doc.contents : doc.getIn(at.slice(0, depth), true)) as Node | null | undefined;
    if (node && typeof node === 'object' && 'range' in node && node.range) return node.range[0];
  }
  return undefined;
}

/**
 * Resolves a `config:/path` reference under `refRoot` and reads it. Refuses `..`, absolute
 * paths and symlinks leaving `refRoot` (E_OUTSIDE_WORKSPACE); a missing file is E_CONFIG.
 */
export async function readConfigRef(refRoot: string, ref: string): Promise<string> {
  const abs = await resolveConfigRef(refRoot, ref);
  try {
    return await fs.readFile(abs, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EISDIR') throw new KilnError('E_CONFIG', `${ref} is a folder, not a file`);
    throw new KilnError(
      'E_CONFIG',
      `${ref}: cannot read ${code === 'ENOENT' ? '(file not found)' : (err as Error).message}`,
    );
  }
}

export async function resolveConfigRef(refRoot: string, ref: string): Promise<string> {
  if (!ref.startsWith('config:/')) throw new KilnError('E_CONFIG', `${ref} is not a config:/ reference`);
  const rel = ref.slice('config:/'.length);
  const outside = () =>
    new KilnError(
      'E_OUTSIDE_WORKSPACE',
      `${ref} points outside ${path.basename(refRoot)}/; config:/ references stay inside it`,
    );
  if (rel.length === 0 || rel.includes('\0')) throw new KilnError('E_CONFIG', `${ref} does not name a file`);
  if (rel.startsWith('/') || rel.includes('\\') || /^[A-Za-z]:/.test(rel) || path.isAbsolute(rel)) throw outside();
  if (rel.split('/').some((seg) => seg === '..')) throw outside();
  const realRoot = await fs
    .realpath(refRoot)
    .catch(
      log.caught(
        'the config:/ root has no realpath (gone meanwhile); its path as given bounds the reference',
        path.resolve(refRoot),
      ),
    );
  const target = path.join(realRoot, ...rel.split('/'));
  let realTarget: string;
  try {
    realTarget = await fs.realpath(target);
  } catch {
    // Missing file: report it as such; a dangling symlink is also "not found" here, nothing is read.
    throw new KilnError('E_CONFIG', `${ref}: file not found`);
  }
  if (realTarget !== realRoot && !realTarget.startsWith(realRoot + path.sep)) throw outside();
  return realTarget;
}

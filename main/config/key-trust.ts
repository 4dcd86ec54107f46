import type { z } from 'zod';
import { CONFIG_BLOCKS, type ConfigBlock, type ConfigFile, type ModelEntrySchema } from './schema';

/**
 * What an untrusted project's value of a key does:
 * - `applies`: used as written; the key can run, send or widen nothing.
 * - `withheld`: not used until the workspace is trusted; the user config's value of the key applies instead.
 * - `narrows`: used only as far as it narrows the user's value (a list of what is allowed).
 * - `watcher-only`: the file watcher follows it; local history does not (history keeps its own rules).
 */
export type UntrustedRule = 'applies' | 'withheld' | 'narrows' | 'watcher-only';

export interface KeyTrust {
  untrusted: UntrustedRule;
  /** Why: what the key could do in a stranger's folder. */
  why: string;
}

type BlockKeys<B extends ConfigBlock> = B extends 'models'
  ? keyof z.input<typeof ModelEntrySchema>
  : keyof NonNullable<ConfigFile[B]>;

/**
 * Every key of the config schema, with what it may do untrusted and why. Typed so that a key added to the
 * schema without a row here does not compile: trust is decided by what each key can do, never by a short list.
 */
export const KEY_TRUST: { readonly [B in ConfigBlock]: { readonly [K in BlockKeys<B>]-?: KeyTrust } } = {
  models: {
    provider: { untrusted: 'withheld', why: 'with base_url, picks where the operator’s code and prompts are sent' },
    base_url: { untrusted: 'withheld', why: 'a server the project names would receive the operator’s files' },
    model: { untrusted: 'withheld', why: 'part of an entry that is withheld whole' },
    api_key_env: {
      untrusted: 'withheld',
      why: 'names an environment variable whose value is sent as a key: any secret of the operator’s',
    },
  },
  file_editing: {
    model: {
      untrusted: 'applies',
      why: 'picks among the models that apply (the user’s, until trust); one of the project’s own is withheld with them',
    },
    system_prompt: {
      untrusted: 'withheld',
      why: 'would instruct the operator’s own model with the project’s words, as if they were the operator’s',
    },
  },
  agent: {
    model: {
      untrusted: 'applies',
      why: 'picks among the models that apply (the user’s, until trust); one of the project’s own is withheld with them',
    },
    tools: {
      untrusted: 'narrows',
      why: 'an allowlist: a project may take verbs away from the Agent, never give back ones the user took away',
    },
    system_prompt: {
      untrusted: 'withheld',
      why: 'would steer an Agent that writes files and runs code, with the operator’s authority',
    },
  },
  jupyter: {
    command: { untrusted: 'withheld', why: 'a program Kiln would start, unsandboxed, as the operator' },
    url: { untrusted: 'withheld', why: 'a server that would receive the operator’s notebooks and run their code' },
    token_env: { untrusted: 'withheld', why: 'names an environment variable whose value is sent to that server' },
  },
  watch: {
    exclude: {
      untrusted: 'watcher-only',
      why: 'what the watcher skips runs and sends nothing; but local history (and Undo this turn) must not be switched off by a stranger',
    },
  },
  sandbox: {
    network: { untrusted: 'withheld', why: 'opens the network to agent code' },
    env: { untrusted: 'withheld', why: 'passes the operator’s environment variables (secrets) into agent code' },
    host_ports: { untrusted: 'withheld', why: 'lets agent code reach the operator’s own loopback services' },
  },
};

/** The rule for `block.key` (a model entry's fields for `models`). */
export function keyTrust(block: ConfigBlock, key: string): KeyTrust {
  const rows = KEY_TRUST[block] as Readonly<Record<string, KeyTrust>>;
  // The schema is strict, so every key that parsed has a row; a missing one is treated as the strictest.
  return Object.hasOwn(rows, key) ? rows[key] : { untrusted: 'withheld', why: 'not known to need no trust' };
}

/** How the trust bar names an untrusted project's `watch.exclude`: the watcher follows it, history does not. */
export const WATCH_EXCLUDE_WITHHELD = 'watch.exclude (for local history)';

/** One block as it applies: its value after trust, the file it came from, and the file of each key taken elsewhere. */
export interface ChosenBlock<F, V = Record<string, unknown>> {
  owner: F;
  value: V;
  /** Keys whose value came from another file than `owner` (a withheld project key answered by the user's). */
  keyOwners: Partial<Record<string, F>>;
}

interface SourcedFile {
  location: { source: 'project' | 'user' };
  value: ConfigFile;
}

/**
 * Set, not merge: for each block the project's wins whole, else the user's. Untrusted, each key of the project's
 * block follows its rule in KEY_TRUST; a block whose every key is withheld is as if the project had not set it.
 * `historyExclude` is the `watch.exclude` local history follows (null: its defaults).
 */
export function chooseBlocks<F extends SourcedFile>(
  project: F | undefined,
  user: F | undefined,
  projectTrusted: boolean,
): { chosen: Map<ConfigBlock, ChosenBlock<F>>; withheld: string[]; historyExclude: string[] | null } {
  const chosen = new Map<ConfigBlock, ChosenBlock<F>>();
  const withheld: string[] = [];
  const whole = (file: F | undefined, block: ConfigBlock) => {
    const value = file?.value[block] as Record<string, unknown> | undefined;
    if (file && value !== undefined) chosen.set(block, { owner: file, value, keyOwners: {} });
  };
  for (const block of CONFIG_BLOCKS) {
    const theirs = project?.value[block] as Record<string, unknown> | undefined;
    const mine = user?.value[block] as Record<string, unknown> | undefined;
    if (!project || theirs === undefined) whole(user, block);
    else if (projectTrusted) whole(project, block);
    else if (block === 'models') {
      // Every field of an entry is withheld, so every entry is.
      withheld.push(...Object.keys(theirs).map((alias) => `models.${alias}`));
      whole(user, block);
    } else {
      const value: Record<string, unknown> = {};
      const keyOwners: ChosenBlock<F>['keyOwners'] = {};
      let applies = false;
      for (const [key, theirValue] of Object.entries(theirs)) {
        const rule = keyTrust(block, key).untrusted;
        if (rule === 'withheld') {
          withheld.push(`${block}.${key}`);
          if (mine?.[key] !== undefined && user) {
            value[key] = mine[key];
            keyOwners[key] = user;
          }
          continue;
        }
        applies = true;
        if (rule === 'watcher-only') withheld.push(WATCH_EXCLUDE_WITHHELD);
        value[key] = rule === 'narrows' ? narrowList(theirValue, mine?.[key]) : theirValue;
      }
      // A narrowing key the project left out keeps the user's value (absent would mean "everything").
      for (const [key, row] of Object.entries(KEY_TRUST[block]) as Array<[string, KeyTrust]>) {
        if (row.untrusted === 'narrows' && !(key in theirs) && mine?.[key] !== undefined && user) {
          value[key] = mine[key];
          keyOwners[key] = user;
        }
      }
      if (applies) chosen.set(block, { owner: project, value, keyOwners });
      else whole(user, block);
    }
  }
  const watchOwner = chosen.get('watch');
  const historyExclude =
    watchOwner && (projectTrusted || watchOwner.owner !== project)
      ? (watchOwner.value.exclude as string[])
      : ((user?.value.watch?.exclude as string[] | undefined) ?? null);
  return { chosen, withheld, historyExclude };
}

/** An allowlist narrowed by another: absent means "everything". */
function narrowList(theirs: unknown, mine: unknown): unknown {
  if (!Array.isArray(mine)) return theirs;
  if (!Array.isArray(theirs)) return mine;
  return theirs.filter((item) => mine.includes(item));
}

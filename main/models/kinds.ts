import type { ToolSet } from 'ai';
import type { SessionKind } from '../../shared/contract';

/**
 * What a session kind gets from the one run engine. Kinds differ only by this data, so a new kind
 * cannot leak orchestration (allowlists, queueing, todos, checkpoints) into another by accident.
 */
export interface SessionKindPolicy {
  /** Tools the kind always carries, by name; the engine refuses to run without exactly these. */
  readonly intrinsicTools: readonly string[];
  /** Sets that may stand instead of intrinsicTools, whole (edit: propose_notebook on a notebook). */
  readonly intrinsicAlternatives?: readonly (readonly string[])[];
  /** Whether tools from outside the kind (the workspace verbs) are offered at all. */
  readonly configuredTools: boolean;
  /** Whether the config's `tools:` allowlist filters the configured tools. */
  readonly honoursAllowlist: boolean;
  /** A second run on a busy session: refused with E_BUSY, or queued behind the running one. */
  readonly whenBusy: 'refuse' | 'queue';
  readonly todos: boolean;
  readonly checkpoints: boolean;
  /** Model steps per run; an edit run is one reply (text and/or one proposal). */
  readonly maxSteps: number;
}

export const SESSION_KIND_POLICIES: Readonly<Record<SessionKind, SessionKindPolicy>> = Object.freeze({
  edit: Object.freeze({
    intrinsicTools: Object.freeze(['propose_file']),
    intrinsicAlternatives: Object.freeze([Object.freeze(['propose_notebook'])]),
    configuredTools: false,
    honoursAllowlist: false,
    whenBusy: 'refuse',
    todos: false,
    checkpoints: false,
    maxSteps: 1,
  }),
  // The Agent: the configured verbs under its allowlist. Fixed here, so the engine's guards are tested once for both kinds.
  workspace: Object.freeze({
    intrinsicTools: Object.freeze([]),
    configuredTools: true,
    honoursAllowlist: true,
    whenBusy: 'queue',
    todos: false,
    checkpoints: false,
    maxSteps: 24,
  }),
});

export interface ToolSources {
  /** The kind's own tools (for `edit`: propose_file). */
  intrinsic: ToolSet;
  /** Tools from outside the kind (workspace verbs); ignored by kinds that do not take them. */
  configured?: ToolSet;
  /** The config's allowlist; null/undefined = all configured tools. Ignored by kinds that do not honour it. */
  allowlist?: readonly string[] | null;
}

/** The exact tool set a run of `kind` gets. */
export function selectTools(kind: SessionKind, sources: ToolSources, policies = SESSION_KIND_POLICIES): ToolSet {
  const policy = policies[kind];
  const tools: ToolSet = {};
  const has = (name: string) => Object.hasOwn(sources.intrinsic, name);
  const names =
    policy.intrinsicAlternatives?.find((set) => set.every(has) && !policy.intrinsicTools.every(has)) ??
    policy.intrinsicTools;
  for (const name of names) {
    const intrinsic = Object.hasOwn(sources.intrinsic, name) ? sources.intrinsic[name] : undefined;
    if (!intrinsic) throw new Error(`Session kind '${kind}' needs its intrinsic tool '${name}'`);
    tools[name] = intrinsic;
  }
  if (!policy.configuredTools) return tools;
  const allow = policy.honoursAllowlist && sources.allowlist ? new Set(sources.allowlist) : null;
  for (const [name, tool] of Object.entries(sources.configured ?? {})) {
    if (allow && !allow.has(name)) continue;
    if (!Object.hasOwn(tools, name)) tools[name] = tool;
  }
  return tools;
}

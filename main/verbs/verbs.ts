import { constants as fsConstants } from 'node:fs';
import { access } from 'node:fs/promises';
import type { z } from 'zod';
import {
  isVerbName,
  VERB_NAMES,
  VERBS,
  verbInputJsonSchema,
  type ParsedVerbArgs,
  type VerbInfo,
  type VerbName,
  type VerbResult,
  type VerbRunResult,
  type RunChanges,
} from '../../shared/contract/verbs';
import type { EntryKind } from '../../shared/contract';
import { SerialQueue } from '../../shared/base/serial-queue';
import { KilnError } from '../../shared/errors';
import {
  DEFAULT_SANDBOX_SETTINGS,
  overlayChanges,
  Sandbox,
  upperNames,
  type PreparedRun,
  type SandboxSettings,
} from '../sandbox';
import type { Workspace } from '../workspace';
import { AgentAccess } from './agent-access';
import { AuditLog } from './audit-log';
import { NotebookVerbs } from './notebook-verbs';
import { replaceExactlyOnce } from './replace-once';
import type { NotebookVerbTarget } from './notebook-target';
import { findKernelPython } from './python';
import { runPythonProcess, type PythonProcessOutcome } from './python-process';
import { applyRunChanges } from './run-changes';
import { recoverInterruptedRuns, type RecoveredRun } from './interrupted-runs';
import { currentWriteCause } from '../history';
import { createLogger } from '../log';

const log = createLogger('verbs');

/**
 * Kiln's settings for every run: unbuffered UTF-8 output, no bytecode litter, no GUI. src/ is put on sys.path by
 * the step file itself too, so a replay with nothing set imports the same modules.
 */
const RUN_ENV: Record<string, string> = {
  PYTHONUNBUFFERED: '1',
  PYTHONIOENCODING: 'utf-8',
  PYTHONDONTWRITEBYTECODE: '1',
  MPLBACKEND: 'Agg',
};

export interface VerbTimeouts {
  /** Time limit of run-file / execute-code (default 60 s). */
  runMs?: number;
  /** Time limit with `heavy: true` (default 600 s). */
  heavyRunMs?: number;
}

export interface VerbsOptions {
  workspace: Workspace;
  /** The notebook service behind the notebook verbs; without it they fail with E_NO_JUPYTER. */
  notebooks?: NotebookVerbTarget;
  /** The kernel's Python. Default: the interpreter the `jupyter` command runs on (see findKernelPython). */
  python?: string;
  /** The configured Jupyter command (read at each use: trust and config can change it), to find the kernel's Python when `python` is not given. */
  jupyterCommand?: () => string[] | undefined;
  timeouts?: VerbTimeouts;
  /** Per output stream (and per notebook output text); the middle of longer output is dropped. Default 50,000. */
  maxOutputChars?: number;
  /** The audit-log folder, workspace-relative (default 'scripts'). */
  scriptsDir?: string;
  /** The environment runs pick their allowlisted variables from (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Where runs are sandboxed (default: bubblewrap as found on this machine). */
  sandbox?: Sandbox;
  /**
   * Kiln's own folders and files (its data folder, the user config): protected and masked, for the verbs and in the
   * sandbox, should the workspace hold them.
   */
  privateDirs?: string[];
  /** The sandbox block of the config (read at each run: trust and config can change it). */
  sandboxSettings?: () => SandboxSettings;
  /** Whether the operator trusts the workspace; without a sandbox only a trusted one runs code. Default true. */
  trusted?: () => boolean;
  /**
   * A private folder (in Kiln's data folder) where a sandboxed run's writes are staged in an overlay and applied
   * once it ended, through the workspace, so local history and "Undo this turn" cover them. Without it runs write
   * to the workspace directly.
   */
  stageRunWritesIn?: string;
}

export interface VerbCallOptions {
  /** Aborting kills a running run-file / execute-code process tree; the call fails with E_CANCELLED. */
  signal?: AbortSignal;
}

type Implementations = {
  [V in VerbName]: (args: ParsedVerbArgs<V>, options: VerbCallOptions) => Promise<VerbResult<V>>;
};

/**
 * The workspace verbs, once, for every front-end: Kiln's Agent, the MCP server and the UI.
 * Writes are marked as the agent's; run-file and execute-code leave a step in the audit log (scripts/).
 */
export class Verbs {
  readonly workspace: Workspace;
  private readonly options: VerbsOptions;
  private readonly audit: AuditLog;
  private python: Promise<string> | null = null;
  private pythonSource = 'null';
  private readonly running = new Set<AbortController>();
  private readonly admission = new SerialQueue();
  private disposed = false;
  private readonly impl: Implementations;
  readonly sandbox: Sandbox;
  /** What agents may not change or read here: one list for the verbs, the sandbox's mounts and the apply of runs. */
  private readonly access: AgentAccess;
  private readonly notebookVerbs: NotebookVerbs;

  constructor(options: VerbsOptions) {
    this.options = options;
    this.sandbox = options.sandbox ?? new Sandbox({ env: options.env });
    this.workspace = options.workspace;
    this.audit = new AuditLog({ workspace: options.workspace, dir: normalizeDir(options.scriptsDir ?? 'scripts') });
    this.access = new AgentAccess(options.workspace, {
      scriptsDir: this.audit.dir,
      privateDirs: options.privateDirs,
      env: options.env,
    });
    this.notebookVerbs = new NotebookVerbs({
      workspace: options.workspace,
      access: this.access,
      sandbox: this.sandbox,
      notebooks: options.notebooks,
      trusted: options.trusted,
      maxOutputChars: options.maxOutputChars ?? 50_000,
    });
    const notebook = this.notebookVerbs;
    this.impl = {
      'list-files': (args) => this.listFiles(args),
      'read-file': (args) => this.readFile(args),
      'write-file': (args) => this.writeFile(args),
      'edit-file': (args) => this.editFile(args),
      'run-file': (args, opts) => this.runFile(args, opts),
      'execute-code': (args, opts) => this.executeCode(args, opts),
      'append-notebook-cell': (args) => notebook.appendCell(args),
      'run-notebook-cell': (args) => notebook.runNewCell(args),
      'edit-notebook-cell': (args) => notebook.editCell(args),
      'delete-notebook-cell': (args) => notebook.deleteCell(args),
      'rerun-notebook-cell': (args) => notebook.rerunCell(args),
    };
  }

  /** The verbs with their descriptions and input JSON Schemas. */
  list(): VerbInfo[] {
    return VERB_NAMES.map((name) => ({
      name,
      description: VERBS[name].description,
      inputSchema: verbInputJsonSchema(name),
      available: this.isAvailable(name),
    }));
  }

  isAvailable(name: VerbName): boolean {
    return !VERBS[name].needsNotebooks || this.options.notebooks !== undefined;
  }

  /** Validates `args` against the verb's schema (E_BAD_REQUEST) and runs it. */
  async call<V extends VerbName>(verb: V, args: unknown, options?: VerbCallOptions): Promise<VerbResult<V>>;
  async call(verb: string, args: unknown, options?: VerbCallOptions): Promise<VerbResult<VerbName>>;
  async call(verb: string, args: unknown, options: VerbCallOptions = {}): Promise<VerbResult<VerbName>> {
    if (this.disposed) throw new KilnError('E_SHUTTING_DOWN', 'The verbs service was shut down');
    if (!isVerbName(verb))
      throw new KilnError('E_BAD_REQUEST', `Unknown verb "${verb}". Known verbs: ${VERB_NAMES.join(', ')}`);
    const schema: z.ZodType = VERBS[verb].input;
    const parsed = schema.safeParse(acceptOldArgNames(verb, args ?? {}));
    if (!parsed.success) {
      const issues = parsed.error.issues.map(
        (issue) => `${issue.path.length ? issue.path.join('.') : '(args)'}: ${issue.message}`,
      );
      throw new KilnError('E_BAD_REQUEST', `Bad arguments to ${verb}: ${issues.join('; ')}`);
    }
    const run = this.impl[verb] as (args: unknown, options: VerbCallOptions) => Promise<VerbResult<VerbName>>;
    return run(parsed.data, options);
  }

  /**
   * Applies what runs cut short by a dead Kiln (this workspace's, any process's) wrote: their writes waited in the
   * staging folder. Called once at start; safe alongside other Kilns on the workspace (each run is claimed once).
   */
  async recoverInterruptedRuns(): Promise<RecoveredRun[]> {
    const staging = this.options.stageRunWritesIn;
    if (!staging) return [];
    const protectedPaths = await this.access.protectedPaths();
    return recoverInterruptedRuns({
      staging,
      workspace: this.workspace,
      python: () => this.kernelPython(),
      refuse: (rel) => protectedPaths.writeRefusal(rel),
    });
  }

  /** Kills any run still going. */
  async dispose(): Promise<void> {
    this.disposed = true;
    for (const controller of this.running) controller.abort();
  }

  // --- file verbs -----------------------------------------------------------------------------

  private async listFiles({ path: given }: ParsedVerbArgs<'list-files'>): Promise<VerbResult<'list-files'>> {
    const rel = given ? this.workspace.normalize(given) : '';
    await this.access.refuseIf(rel, 'read');
    const entries = await this.workspace.list(rel, { showHidden: true });
    return { path: rel, entries: entries.map((entry) => ({ name: entry.name, kind: entry.kind })) };
  }

  private async readFile({
    path: given,
    start_line,
    max_lines,
  }: ParsedVerbArgs<'read-file'>): Promise<VerbResult<'read-file'>> {
    const rel = this.workspace.normalize(given);
    await this.access.refuseIf(rel, 'read');
    const file = await this.workspace.read(rel);
    if (file.binary || file.text === null)
      throw new KilnError(
        'E_BAD_REQUEST',
        `"${rel}" is a binary file (${file.size} bytes); read-file returns text only`,
      );
    const lines = file.text.split('\n');
    const slice = lines.slice(start_line - 1, start_line - 1 + max_lines);
    const truncated = file.truncated || start_line - 1 + max_lines < lines.length;
    return { path: file.path, content: slice.join('\n'), start_line, total_lines: lines.length, truncated };
  }

  private async writeFile({
    path: given,
    content,
    overwrite,
  }: ParsedVerbArgs<'write-file'>): Promise<VerbResult<'write-file'>> {
    const rel = await this.authoringPath(given);
    const existing = await this.existingKind(rel);
    if (existing === 'dir') throw new KilnError('E_IS_A_DIRECTORY', `"${rel}" is a folder, not a file`);
    if (existing === 'file' && !overwrite) {
      throw new KilnError('E_EXISTS', `"${rel}" already exists; pass overwrite: true to replace it, or use edit-file`);
    }
    const written = await this.workspace.write(rel, content, { origin: 'agent', createParents: true });
    return { path: written.path, bytes_written: written.size, created: existing === null };
  }

  private async editFile(args: ParsedVerbArgs<'edit-file'>): Promise<VerbResult<'edit-file'>> {
    const rel = await this.authoringPath(args.path);
    const current = await this.workspace.read(rel);
    if (current.binary || current.text === null)
      throw new KilnError('E_BAD_REQUEST', `"${rel}" is a binary file; edit-file changes text files only`);
    if (current.truncated) throw new KilnError('E_TOO_LARGE', `"${rel}" is too large to edit (${current.size} bytes)`);
    let next: string;
    let replacements = 0;
    if (args.mode === 'overwrite') {
      next = args.content ?? '';
    } else {
      next = replaceExactlyOnce(current.text, args.old ?? '', args.new ?? '', rel);
      replacements = 1;
    }
    // The hash we read guards against clobbering a change made meanwhile (E_CHANGED_ON_DISK).
    const written = await this.workspace.write(rel, next, { origin: 'agent', expectedHash: current.hash });
    return { path: written.path, bytes_written: written.size, replacements };
  }

  // --- run verbs ------------------------------------------------------------------------------

  private async runFile(
    { path: given, heavy }: ParsedVerbArgs<'run-file'>,
    options: VerbCallOptions,
  ): Promise<VerbRunResult> {
    const rel = this.workspace.normalize(given);
    // What agents may not read they may not run either (the sandbox would show it empty anyway).
    await this.access.refuseIf(rel, 'read');
    // Refused before anything runs, so a missing file leaves no step in the log.
    const kind = await this.existingKind(rel);
    if (kind !== 'file' && kind !== null && kind !== 'dir') {
      throw new KilnError('E_NOT_REGULAR_FILE', `"${rel}" is a ${kind}, not a file; nothing was run`);
    }
    if (kind !== 'file')
      throw new KilnError('E_NOT_FOUND', `"${rel}" does not exist (or is not a file); nothing was run`);
    return this.runStep((header) => this.audit.recordRunFile(rel, header), heavy, options);
  }

  private executeCode(
    { code, heavy }: ParsedVerbArgs<'execute-code'>,
    options: VerbCallOptions,
  ): Promise<VerbRunResult> {
    return this.runStep((header) => this.audit.recordCode(code, header), heavy, options);
  }

  /**
   * The one way code runs: decide how it runs (in the sandbox, or refused), log the step with that in its header,
   * then run the step file itself, so what ran is what replays (and a traceback points at the step's real lines).
   * Python and the sandbox are settled first: nothing is logged for a run that cannot happen.
   */
  private async runStep(
    record: (header: string) => Promise<string>,
    heavy: boolean,
    options: VerbCallOptions,
  ): Promise<VerbRunResult> {
    // Steps are numbered in the order the calls came, though preparing one run can take longer than another.
    const { prepared, script } = await this.admission.run(async () => {
      const ready = await this.prepareRun(heavy);
      // Side by side, both before any code runs: the run's record (should Kiln die during the run, the next Kiln
      // applies what it wrote, for its turn) and the step. Both settle before a failure disposes of the run.
      const [described, recorded] = await Promise.allSettled([
        ready.overlay?.describe({ workspaceRoot: this.workspace.root, cause: { ...currentWriteCause() } }),
        record(ready.description),
      ]);
      if (described.status === 'rejected' || recorded.status === 'rejected') {
        await ready.dispose();
        throw described.status === 'rejected' ? described.reason : (recorded as PromiseRejectedResult).reason;
      }
      return { prepared: ready, script: recorded.value };
    });
    try {
      const stepFile = await this.workspace.resolve(script);
      return { ...(await this.runPrepared(prepared, stepFile, options)), script };
    } finally {
      // Tidying up (the run's cgroup) is not part of the answer.
      void prepared
        .dispose()
        .catch(log.caught("tidying a run up (its cgroup) failed; the run's answer stands", undefined, 'warn'));
    }
  }

  private async prepareRun(heavy: boolean): Promise<PreparedRun> {
    const [python, protectedPaths] = await Promise.all([this.kernelPython(), this.access.protectedPaths()]);
    const timeMs = heavy ? this.options.timeouts?.heavyRunMs : this.options.timeouts?.runMs;
    return this.sandbox.prepare({
      python,
      args: [],
      heavy,
      workspaceRoot: this.workspace.root,
      readOnly: protectedPaths.readOnlyRoots,
      // The step is written there before the run starts.
      madeBeforeRun: [this.audit.dir],
      masked: await protectedPaths.maskedEntries(),
      baseEnv: this.options.env ?? process.env,
      setEnv: RUN_ENV,
      settings: this.options.sandboxSettings?.() ?? DEFAULT_SANDBOX_SETTINGS,
      timeMs,
      trusted: this.options.trusted?.() ?? true,
      stageWritesIn: this.options.stageRunWritesIn,
    });
  }

  private async runPrepared(
    prepared: PreparedRun,
    stepFile: string,
    options: VerbCallOptions,
  ): Promise<Omit<VerbRunResult, 'script'>> {
    const controller = new AbortController();
    const forward = () => controller.abort();
    options.signal?.addEventListener('abort', forward, { once: true });
    if (options.signal?.aborted) controller.abort();
    this.running.add(controller);
    let outcome: PythonProcessOutcome;
    try {
      outcome = await runPythonProcess({
        python: prepared.command,
        args: [...prepared.args, '-u', stepFile],
        cwd: this.workspace.root,
        env: prepared.env,
        timeoutMs: prepared.profile.timeMs,
        maxOutputChars: this.options.maxOutputChars ?? 50_000,
        signal: controller.signal,
        contained: prepared.sandboxed,
      });
    } finally {
      this.running.delete(controller);
      options.signal?.removeEventListener('abort', forward);
    }
    // Which limit the run hit is asked while its writes apply (one wait, not two).
    const limitHit = prepared.limitOf({
      timedOut: outcome.timed_out,
      returncode: outcome.returncode,
      stderr: outcome.stderr,
    });
    // Applied however the run ended (a timed-out or cancelled run's writes are as real as a finished one's).
    const [files, limit] = await Promise.all([this.applyStagedWrites(prepared), limitHit]);
    if (outcome.cancelled)
      throw new KilnError('E_CANCELLED', 'The run was stopped; its process and everything it started were killed');
    let stderr = outcome.stderr;
    const limitNote = limit ? prepared.limitMessage(limit) : undefined;
    if (limitNote) stderr += `${stderr && !stderr.endsWith('\n') ? '\n' : ''}[kiln] ${limitNote}\n`;
    return {
      stdout: outcome.stdout,
      stderr,
      returncode: outcome.returncode,
      duration_ms: outcome.duration_ms,
      timed_out: outcome.timed_out,
      sandboxed: prepared.sandboxed,
      profile: prepared.profile.name,
      ...(limit ? { limit, limit_message: limitNote } : {}),
      ...(files ? { files } : {}),
    };
  }

  /** The run's staged writes, applied under the current write cause (its turn); what it wrote directly, said so. */
  private async applyStagedWrites(prepared: PreparedRun): Promise<RunChanges | undefined> {
    if (!this.options.stageRunWritesIn) return undefined;
    const direct = { staged: false, created: [], changed: [], deleted: [], kept: [] };
    if (!prepared.overlay) return { ...direct, direct_reason: prepared.directWritesReason };
    const overlay = prepared.overlay;
    const mounted = await overlay.mounted();
    const written = upperNames(overlay.upper);
    if (!mounted) return { ...direct, direct_reason: 'the overlay could not be mounted over this workspace' };
    // Most runs write nothing: no walk, no apply.
    if (written.length === 0) return { ...direct, staged: true };
    const changes = await overlayChanges(overlay.upper, this.workspace.root, await this.kernelPython()).catch(
      async (err: unknown) => {
        await overlay.keep();
        const why = err instanceof Error ? err.message : String(err);
        throw new KilnError(
          'E_INTERNAL',
          `The run ended, but what it wrote could not be read back (${why}); it is kept in ${overlay.upper}`,
        );
      },
    );
    const protectedPaths = await this.access.protectedPaths();
    return applyRunChanges({
      workspace: this.workspace,
      upper: overlay.upper,
      changes,
      startedAt: overlay.startedAt,
      keep: overlay.keep,
      refuse: (rel) => protectedPaths.writeRefusal(rel),
    });
  }

  private kernelPython(): Promise<string> {
    const given = this.options.python;
    const jupyterCommand = this.options.jupyterCommand?.();
    const source = JSON.stringify(jupyterCommand ?? null);
    if (source !== this.pythonSource) this.python = null;
    this.pythonSource = source;
    this.python ??= given
      ? access(given, fsConstants.X_OK).then(
          () => given,
          () => {
            throw new KilnError('E_NO_JUPYTER', `The Python interpreter ${given} does not exist or cannot be run`);
          },
        )
      : findKernelPython({ jupyterCommand, env: this.options.env });
    this.python.catch((err: unknown) => {
      // Asked again next time (an interpreter installed meanwhile is found); the caller is told the error.
      log.caught("finding the kernel's Python failed; found again on the next call", undefined)(err);
      this.python = null;
    });
    return this.python;
  }

  // --- helpers --------------------------------------------------------------------------------

  /** Normalizes a path for write-file / edit-file; protected paths (.kiln/, .git/, the audit log…) are not theirs. */
  private async authoringPath(given: string): Promise<string> {
    const rel = this.workspace.normalize(given);
    await this.access.refuseIf(rel, 'write');
    return rel;
  }

  private async existingKind(rel: string): Promise<EntryKind | null> {
    try {
      return (await this.workspace.stat(rel)).kind;
    } catch (err) {
      if (err instanceof KilnError && err.code === 'E_NOT_FOUND') return null;
      throw err;
    }
  }
}

/**
 * Compatibility: notebook verbs took `notebook` before they took the verbs design's `notebook_name`. An old caller's
 * `notebook` is read as `notebook_name` (the schema and docs name only `notebook_name`).
 */
function acceptOldArgNames(verb: VerbName, args: unknown): unknown {
  if (!VERBS[verb].needsNotebooks || typeof args !== 'object' || args === null || Array.isArray(args)) return args;
  const { notebook, ...rest } = args as Record<string, unknown>;
  if (notebook === undefined || 'notebook_name' in rest) return args;
  return { ...rest, notebook_name: notebook };
}

function normalizeDir(dir: string): string {
  return dir.replace(/\\/g, '/').replace(/^\.?\/+|\/+$/g, '') || 'scripts';
}

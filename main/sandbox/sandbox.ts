import { randomUUID } from 'node:crypto';
import { lstatSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { KilnError } from '../../shared/errors';
import { buildBwrapArgs, isWithin, limitedCommand } from './bwrap-args';
import { sandboxEnv } from './env';
import { classifyLimit, limitMessage, type RunLimit } from './limits';
import {
  existingSecrets,
  findPrlimit,
  interpreterPaths,
  maskTargets,
  probeSandbox,
  systemEntries,
  type SandboxStatus,
} from './machine';
import type { SystemEntry } from './bwrap-args';
import { prepareRunOverlay, probeOverlay, unstageableReason, type RunOverlay } from './overlay';
import { findExecutable } from '../process';
import { createPidsCgroup, RUN_CGROUP_PREFIX, sweepStaleRunCgroups } from './pids-cgroup';
import { describeRun, sandboxProfile, type SandboxProfile } from './profile';
import { probeDisableUserns, restrictionArgs, SECCOMP_FD, withSeccompFd } from './hardening';
import { seccompProgramFile } from './seccomp-file';
import { NO_PASTA_MESSAGE, outboundNetworkArgs, withOutboundNetwork } from './network';
import { createLogger } from '../log';

const log = createLogger('sandbox');
const notThere = log.caught('a path a run may write is not there yet (or unresolvable); it is made or left out', null);
/** A synchronous metadata call, null (and logged, see notThere) when the path is not there or cannot be resolved. */
function orNotThere<T>(call: () => T): T | null {
  try {
    return call();
  } catch (err) {
    return notThere(err);
  }
}

/** What the project config (trusted) or the user config says about the sandbox. */
export interface SandboxSettings {
  /** Let agent code reach the network (default false: a private network namespace, even loopback is its own). */
  network: boolean;
  /** Extra environment variable names passed into runs. */
  env: string[];
  /** With the network: the host's loopback TCP ports the run may reach (at its own 127.0.0.1, same port). */
  hostPorts?: number[];
}

export const DEFAULT_SANDBOX_SETTINGS: SandboxSettings = { network: false, env: [] };

export interface RunRequest {
  python: string;
  /** Arguments after the interpreter (e.g. `-u`, the step file). */
  args: string[];
  heavy: boolean;
  workspaceRoot: string;
  /**
   * Workspace-relative paths the code may read but not change, whether or not they exist yet (ProtectedPaths'
   * readOnlyRoots: the audit log, .kiln, .git).
   */
  readOnly: string[];
  /** Of `readOnly`, what the caller makes before the run starts (the audit log, where the step is written): bound. */
  madeBeforeRun?: string[];
  /** Workspace-relative entries the code may not even read (ProtectedPaths.maskedEntries): shown empty. */
  masked: string[];
  /** The operator's environment the allowlist picks from. */
  baseEnv: NodeJS.ProcessEnv;
  /** Kiln's own settings for the run (unbuffered output…), applied last. */
  setEnv: Record<string, string>;
  settings: SandboxSettings;
  /** Overrides the profile's wall limit. */
  timeMs?: number;
  /** Whether the operator trusts the workspace: without a sandbox, only a trusted one runs agent code. */
  trusted: boolean;
  /**
   * A private folder (Kiln's data folder) to stage the run's writes in: the workspace is then an overlay whose
   * upper layer is here, and the caller applies the changes after the run (see RunOverlay). Without it, or where
   * no overlay can be mounted, the code writes to the workspace directly.
   */
  stageWritesIn?: string;
}

/** One run, ready to start: the command line, its limits, and what to read once it ended. */
export interface PreparedRun {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  sandboxed: boolean;
  profile: SandboxProfile;
  /** For the step file's header. */
  description: string;
  /** Which limit the run hit, from how it ended. */
  limitOf(outcome: { timedOut: boolean; returncode: number; stderr: string }): Promise<RunLimit | null>;
  limitMessage(limit: RunLimit): string;
  /** Where the run's writes are staged; null: they go to the workspace directly. */
  overlay: RunOverlay | null;
  /** Why writes are not staged (no overlay here), when they were asked to be. */
  directWritesReason?: string;
  dispose(): Promise<void>;
}

/** Joins the run's cgroup and opens the seccomp program ($1) for bwrap, which the overlay's `unshare` passes on. */
const CGROUP_SECCOMP_SCRIPT = `echo $$ > "$0" && exec ${SECCOMP_FD}<"$1" && shift && exec "$@"`;

export const NO_SANDBOX_LINE = 'Agent code runs without a sandbox on this machine';

/**
 * Runs agent code under bubblewrap: the workspace read-write at its real path (its audit log, .kiln and .git
 * read-only), the system and the interpreter read-only, an empty /tmp and $HOME, an allowlisted environment, no
 * network, own PID/IPC/UTS namespaces, and the profile's limits. Where no sandbox can be had, a trusted workspace
 * runs unsandboxed (and says so); an untrusted one is refused with E_NO_SANDBOX.
 */
export class Sandbox {
  private statusPromise: Promise<SandboxStatus> | null = null;
  /** The machine's facts, found once: they do not change while Kiln runs. */
  private machinePromise: Promise<{
    prlimit: string | null;
    system: SystemEntry[];
    secrets: { files: string[]; dirs: string[] };
    disableUserns: boolean;
  }> | null = null;
  /** pasta, for runs with the network (null: not installed), found once. */
  private pastaPromise: Promise<string | null> | null = null;
  /** `unshare` where an overlay mounts under a staging folder (null: none), probed once per folder. */
  private readonly overlayProbes = new Map<string, Promise<string | null>>();

  constructor(private readonly options: { env?: NodeJS.ProcessEnv } = {}) {}

  status(): Promise<SandboxStatus> {
    this.statusPromise ??= probeSandbox(this.options.env ?? process.env);
    return this.statusPromise;
  }

  async prepare(request: RunRequest): Promise<PreparedRun> {
    const status = await this.status();
    const profile = sandboxProfile(request.heavy, { totalMemoryBytes: os.totalmem() }, request.timeMs);
    const env = sandboxEnv(request.baseEnv, {
      extraNames: request.settings.env,
      set: {
        HOME: request.baseEnv.HOME ?? os.homedir(),
        PYTHONPATH: path.join(request.workspaceRoot, 'src'),
        ...request.setEnv,
      },
    });
    this.machinePromise ??= Promise.all([
      findPrlimit(request.baseEnv),
      systemEntries(),
      existingSecrets(),
      status.bwrap ? probeDisableUserns(status.bwrap) : false,
      sweepStaleRunCgroups(),
    ]).then(([prlimit, system, secrets, disableUserns]) => ({ prlimit, system, secrets, disableUserns }));
    const { prlimit, system, secrets, disableUserns } = status.available
      ? await this.machinePromise
      : { prlimit: null, system: [], secrets: { files: [], dirs: [] }, disableUserns: false };
    if (!status.available || !prlimit) {
      if (!request.trusted) {
        throw new KilnError(
          'E_NO_SANDBOX',
          `Agent code is not run in an untrusted folder without a sandbox, and there is none here (${status.reason || 'prlimit not found'}). Trust the folder to run it unsandboxed.`,
        );
      }
      return {
        command: request.python,
        args: request.args,
        env,
        sandboxed: false,
        profile,
        description: describeRun(profile, false, true),
        limitOf: async (outcome) => classifyLimit({ ...outcome, pidsMaxHit: null }),
        limitMessage: (limit) => limitMessage(limit, profile),
        overlay: null,
        ...(request.stageWritesIn ? { directWritesReason: 'the code runs without a sandbox' } : {}),
        dispose: async () => undefined,
      };
    }
    // The network without the host's own services, or none: never the host's network whole (see network.ts).
    const network = request.settings.network;
    this.pastaPromise ??= findExecutable('pasta', (this.options.env ?? process.env).PATH);
    const pasta = network ? await this.pastaPromise : null;
    if (network && !pasta) throw new KilnError('E_NO_SANDBOX', NO_PASTA_MESSAGE);
    // Side by side: each is a few thread-pool hops, and under load every hop waits its turn.
    const [{ interpreter, masked }, readOnly, cgroup, seccompFile, staged] = await settleAll(
      [
        interpreterPaths(request.python).then(async (interpreter) => ({
          interpreter,
          masked: await maskTargets(request.workspaceRoot, request.masked, interpreter),
        })),
        readOnlyMounts(request.workspaceRoot, request.readOnly, request.madeBeforeRun ?? []),
        createPidsCgroup(`${RUN_CGROUP_PREFIX}${randomUUID()}`, profile.processes),
        seccompProgramFile(),
        request.stageWritesIn ? this.stageWrites(request.stageWritesIn, request.workspaceRoot) : null,
      ] as const,
      // What was made before another part failed goes again: no run will use it.
      async ([, , made, , overlay]) => {
        await Promise.all([made?.dispose(), overlay?.prepared?.overlay.dispose()]);
      },
    );
    const bwrapArgs = buildBwrapArgs({
      workspaceRoot: request.workspaceRoot,
      readOnlyInWorkspace: readOnly.existing,
      // Staged, a protected path the code creates lands in the overlay, where the apply refuses it and says so
      // (`refused`); the overlay is then required (strict). Else an empty read-only folder keeps the code from it.
      placeholders: staged?.prepared ? [] : readOnly.missing,
      home: env.HOME,
      system,
      hiddenFiles: secrets.files,
      hiddenDirs: secrets.dirs,
      extraReadOnly: interpreter,
      maskedFiles: masked.files,
      maskedDirs: masked.dirs,
      network,
      outboundOnly: !!pasta,
      env,
      cwd: request.workspaceRoot,
    });
    const inner = limitedCommand(prlimit, profile, [request.python, ...request.args]);
    // Under the overlay's namespace the caller is root; the code runs as the operator's own ids, as without it.
    const ids =
      staged?.prepared && process.getuid && process.getgid
        ? ['--uid', String(process.getuid()), '--gid', String(process.getgid())]
        : [];
    const bwrap = [
      status.bwrap!,
      // pasta cannot join a sandbox whose user namespace is sealed this way: there, the seccomp filter alone
      // refuses new namespaces.
      ...restrictionArgs({ disableUserns: disableUserns && !pasta, seccomp: !!seccompFile }),
      ...(pasta ? outboundNetworkArgs() : []),
      ...bwrapArgs,
      ...ids,
      '--',
      ...inner,
    ];
    // pasta runs as the caller: root of the overlay's namespace, else the operator's own ids.
    const runAs = staged?.prepared ? '0:0' : `${process.getuid?.() ?? 0}:${process.getgid?.() ?? 0}`;
    const hostPorts = request.settings.hostPorts ?? [];
    // The cgroup is joined and the seccomp program's fd opened by the first shell on the way to bwrap, so no process
    // more is started for them: the overlay's (staged), else the cgroup's; else one right around bwrap. With pasta,
    // the network's shell opens the fd (pasta closes the fds it inherits).
    const firstShell = staged?.prepared ? 'overlay' : cgroup ? 'cgroup' : null;
    const fdInFirstShell = !!(firstShell && seccompFile && !pasta);
    const sandboxed = pasta
      ? withOutboundNetwork({ pasta, hostPorts, runAs, seccompFile }, bwrap)
      : seccompFile && !fdInFirstShell
        ? withSeccompFd(seccompFile, bwrap)
        : bwrap;
    // Joined before bwrap starts, so everything in the sandbox is counted from its first fork.
    const [command, ...args] = staged?.prepared
      ? staged.prepared.wrap(sandboxed, {
          strict: readOnly.missing.length > 0,
          cgroupProcs: cgroup?.procsFile,
          seccompFile: fdInFirstShell ? seccompFile! : undefined,
        })
      : cgroup
        ? fdInFirstShell
          ? ['/bin/sh', '-c', CGROUP_SECCOMP_SCRIPT, cgroup.procsFile, seccompFile!, ...sandboxed]
          : ['/bin/sh', '-c', 'echo $$ > "$0" && exec "$@"', cgroup.procsFile, ...sandboxed]
        : sandboxed;
    const overlay = staged?.prepared?.overlay ?? null;
    return {
      command,
      args,
      // bwrap's own environment: it clears it for the code (--clearenv) and sets the allowlisted one.
      env: { PATH: env.PATH },
      sandboxed: true,
      profile,
      description: describeRun(profile, true, request.settings.network),
      limitOf: async (outcome) => classifyLimit({ ...outcome, pidsMaxHit: cgroup ? await cgroup.maxHit() : null }),
      limitMessage: (limit) => limitMessage(limit, profile),
      overlay,
      ...(staged && !overlay ? { directWritesReason: staged.reason } : {}),
      dispose: async () => {
        await Promise.all([cgroup?.dispose(), overlay?.dispose()]);
      },
    };
  }

  /** The run's overlay under `parent`, or why there is none (probed once per folder: the machine does not change). */
  private async stageWrites(
    parent: string,
    workspaceRoot: string,
  ): Promise<{ prepared: Awaited<ReturnType<typeof prepareRunOverlay>>; reason: string }> {
    const env = this.options.env ?? process.env;
    if (env.KILN_RUN_OVERLAY === 'none')
      return { prepared: null, reason: 'staging is turned off (KILN_RUN_OVERLAY=none)' };
    let probe = this.overlayProbes.get(parent);
    if (!probe) {
      probe = findExecutable('unshare', env.PATH).then(async (unshare) =>
        unshare && (await probeOverlay(unshare, parent)) ? unshare : null,
      );
      this.overlayProbes.set(parent, probe);
    }
    const unshare = await probe;
    if (!unshare)
      return { prepared: null, reason: 'no overlay can be mounted here (unshare and overlayfs in a user namespace)' };
    const unstageable = await unstageableReason(workspaceRoot, parent);
    if (unstageable) return { prepared: null, reason: unstageable };
    return { prepared: await prepareRunOverlay(parent, workspaceRoot, unshare), reason: '' };
  }
}

/**
 * Where each read-only path is mounted: an existing one at its realpath (a `.git` file too; a link leading out of the
 * workspace leaves nothing here to protect), a missing one as a placeholder at its own path. Synchronous: a few
 * metadata calls per run, each less than its hop through the thread pool would wait under load.
 */
async function readOnlyMounts(
  workspaceRoot: string,
  rels: readonly string[],
  madeBeforeRun: readonly string[],
): Promise<{ existing: string[]; missing: string[] }> {
  const existing: string[] = [];
  const missing: string[] = [];
  for (const rel of new Set(rels)) {
    const abs = path.join(workspaceRoot, rel);
    if (!orNotThere(() => lstatSync(abs))) {
      (madeBeforeRun.includes(rel) ? existing : missing).push(abs);
      continue;
    }
    const real = orNotThere(() => realpathSync.native(abs));
    if (real && isWithin(real, workspaceRoot) && real !== workspaceRoot) existing.push(real);
  }
  return { existing, missing };
}

/**
 * Promise.all that waits for every part: should one fail, `undo` gets what the others made (null where a part
 * failed), then the first failure is thrown.
 */
async function settleAll<T extends readonly unknown[]>(
  parts: T,
  undo: (made: { [K in keyof T]: Awaited<T[K]> | null }) => Promise<void>,
): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const settled = await Promise.allSettled(parts);
  const failed = settled.find((part): part is PromiseRejectedResult => part.status === 'rejected');
  if (!failed) return settled.map((part) => (part as PromiseFulfilledResult<unknown>).value) as never;
  await undo(settled.map((part) => (part.status === 'fulfilled' ? part.value : null)) as never).catch(
    log.caught(
      'tidying a run that could not be prepared failed; the stale sweeps take what is left',
      undefined,
      'warn',
    ),
  );
  throw failed.reason;
}

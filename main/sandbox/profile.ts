/** A sandbox profile: the limits one run gets. */
export interface SandboxProfile {
  name: 'default' | 'heavy';
  /** Wall-clock limit. */
  timeMs: number;
  /** Address-space cap (RLIMIT_AS) of each process in the sandbox. */
  memoryBytes: number;
  /** Cap on the sandbox's processes and threads together (a pids cgroup, else RLIMIT_NPROC). */
  processes: number;
}

const GiB = 1024 ** 3;

export const DEFAULT_LIMITS = { timeMs: 60_000, memoryBytes: 4 * GiB, processes: 256 } as const;
export const HEAVY_LIMITS = { timeMs: 600_000, memoryShare: 0.9, processes: 4096 } as const;

/**
 * The profile of a run. Default: 60 s, 4 GiB (at most half the machine), 256 processes and threads. `heavy` is the
 * training profile: 600 s, 90% of the machine's memory, 4096 processes and threads; every CPU in both.
 * `timeMs` overrides the wall limit (tests, and the Verbs' own timeouts option).
 */
export function sandboxProfile(heavy: boolean, machine: { totalMemoryBytes: number }, timeMs?: number): SandboxProfile {
  if (heavy) {
    return {
      name: 'heavy',
      timeMs: timeMs ?? HEAVY_LIMITS.timeMs,
      memoryBytes: Math.floor(machine.totalMemoryBytes * HEAVY_LIMITS.memoryShare),
      processes: HEAVY_LIMITS.processes,
    };
  }
  return {
    name: 'default',
    timeMs: timeMs ?? DEFAULT_LIMITS.timeMs,
    memoryBytes: Math.min(DEFAULT_LIMITS.memoryBytes, Math.floor(machine.totalMemoryBytes / 2)),
    processes: DEFAULT_LIMITS.processes,
  };
}

export function formatBytes(bytes: number): string {
  if (bytes >= GiB) return `${Math.round((bytes / GiB) * 10) / 10} GiB`;
  return `${Math.round(bytes / 1024 ** 2)} MiB`;
}

export function formatSeconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

/** One line for a step file's header: how it ran, so a reader of scripts/ knows what the numbers meant. */
export function describeRun(profile: SandboxProfile, sandboxed: boolean, network: boolean): string {
  if (!sandboxed)
    return `ran without a sandbox (none on this machine), profile ${profile.name}: ${formatSeconds(profile.timeMs)}`;
  return (
    `ran sandboxed (bubblewrap), profile ${profile.name}: ${formatSeconds(profile.timeMs)}, ` +
    `${formatBytes(profile.memoryBytes)} memory, ${profile.processes} processes, ${network ? 'network' : 'no network'}`
  );
}

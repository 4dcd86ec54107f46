import { formatBytes, formatSeconds, type SandboxProfile } from './profile';

export type RunLimit = 'time' | 'memory' | 'processes';

export interface LimitEvidence {
  timedOut: boolean;
  returncode: number;
  stderr: string;
  /** The pids cgroup refused a fork (its `max` event count went up); null when no cgroup was used. */
  pidsMaxHit: boolean | null;
}

// What Python (and C programs) print when RLIMIT_AS refuses memory, or a fork is refused.
const MEMORY_SIGNS = /\bMemoryError\b|Cannot allocate memory|std::bad_alloc|\bout of memory\b/i;
const PROCESS_SIGNS =
  /Resource temporarily unavailable|BlockingIOError: \[Errno 11\]|fork: retry|can't start new thread/i;

/** Which limit ended (or hobbled) a run, if any. Time wins: a run killed by the clock was killed by the clock. */
export function classifyLimit(evidence: LimitEvidence): RunLimit | null {
  if (evidence.timedOut) return 'time';
  if (evidence.pidsMaxHit) return 'processes';
  if (evidence.returncode === 0) return null;
  if (evidence.pidsMaxHit === null && PROCESS_SIGNS.test(evidence.stderr)) return 'processes';
  if (MEMORY_SIGNS.test(evidence.stderr)) return 'memory';
  return null;
}

/** The one line the agent and the chip show for a limit. */
export function limitMessage(limit: RunLimit, profile: SandboxProfile): string {
  const heavier = profile.name === 'heavy' ? '' : ' Pass heavy: true for the training profile.';
  switch (limit) {
    case 'time':
      return `Time limit of ${formatSeconds(profile.timeMs)} reached: the run and every process it started were stopped.${heavier}`;
    case 'memory':
      return `Memory limit of ${formatBytes(profile.memoryBytes)} reached: an allocation was refused.${heavier}`;
    case 'processes':
      return `Process limit of ${profile.processes} processes and threads reached: a fork was refused.${heavier}`;
  }
}

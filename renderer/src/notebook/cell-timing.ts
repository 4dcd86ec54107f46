import type { KilnBridge } from '../../../shared/contract';
import { Store } from '../base';

/** What the view knows of a cell's last run: when it started, and once it ended, how long it took. */
export interface CellTiming {
  /** Epoch ms when the run started (this window's clock). */
  startedAt: number;
  /** Set once the run finished. */
  durationMs: number | null;
  finishedAt: number | null;
}

type TimingState = Readonly<Record<string, CellTiming>>;

/**
 * The runs of one notebook's cells as this window saw them (`notebook.cellState`): main reports each run's
 * duration; the end is when the window heard of it. Runs from before the window opened come from the cell's
 * recorded timing (metadata `execution`), see `recordedTiming`.
 */
export class CellTimings extends Store<TimingState> {
  constructor(bridge: KilnBridge, path: () => string) {
    super({});
    this.own(
      bridge.on('notebook.cellState', (e) => {
        if (e.path !== path()) return;
        if (e.state === 'running') {
          this.set({ [e.cellId]: { startedAt: Date.now(), durationMs: null, finishedAt: null } });
        } else if (e.state === 'idle' && e.result && e.result.status !== 'skipped') {
          const now = Date.now();
          if (e.result.status === 'aborted' && !this.state[e.cellId]) return;
          this.set({
            [e.cellId]: {
              startedAt: now - e.result.duration_ms,
              durationMs: e.result.duration_ms,
              finishedAt: now,
            },
          });
        }
      }),
    );
  }
}

/** A run's timing from the cell's metadata `execution`, as JupyterLab records it; null when there is none. */
export function recordedTiming(metadata: Record<string, unknown>): CellTiming | null {
  const execution = metadata.execution as Record<string, unknown> | undefined;
  if (!execution || typeof execution !== 'object') return null;
  const start = Date.parse(String(execution['iopub.execute_input'] ?? execution['iopub.status.busy'] ?? ''));
  const end = Date.parse(String(execution['shell.execute_reply'] ?? ''));
  if (Number.isNaN(start) || Number.isNaN(end) || end < start) return null;
  return { startedAt: start, durationMs: end - start, finishedAt: end };
}

/** "340 ms", "1.3 s", "2 min 5 s". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  if (hours) return `${hours} h ${minutes} min`;
  return `${minutes} min ${seconds % 60} s`;
}

const clock = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });

/** "1.3 s, 14:02": the last run's duration and when it finished (24-hour clock, local time). */
export function formatFinished(timing: CellTiming): string {
  if (timing.durationMs === null || timing.finishedAt === null) return '';
  return `${formatDuration(timing.durationMs)}, ${clock.format(timing.finishedAt)}`;
}

import { useEffect, useState } from 'react';
import { useStore } from '../base';
import { formatDuration, formatFinished, recordedTiming, type CellTimings } from './cell-timing';

/** How often the elapsed time of a running cell is redrawn. */
const TICK_MS = 100;

/** Under a code cell's input: its last run's duration and end ("1.3 s, 14:02"), or the time so far while it runs. */
export function CellTimingLabel({
  timings,
  cellId,
  running,
  metadata,
}: {
  timings: CellTimings;
  cellId: string;
  running: boolean;
  metadata: Record<string, unknown>;
}) {
  const seen = useStore(timings, (s) => s[cellId]);
  const timing = seen ?? recordedTiming(metadata);
  const live = running && timing !== null && timing.durationMs === null;
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!live) return;
    const timer = setInterval(() => setNow(Date.now()), TICK_MS);
    return () => clearInterval(timer);
  }, [live]);
  if (!timing) return null;
  if (live) {
    return (
      <span className="nb-timing" data-running="" title="Running for">
        {formatDuration(Math.max(0, now - timing.startedAt))}
      </span>
    );
  }
  const text = formatFinished(timing);
  if (!text) return null;
  return (
    <span className="nb-timing" title="Last run: how long it took, and when it finished">
      {text}
    </span>
  );
}

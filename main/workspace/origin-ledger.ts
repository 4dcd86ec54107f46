import path from 'node:path';
import type { Origin } from '../../shared/contract';

const MEMORY_MS = 3000;

/**
 * Remembers which paths Kiln itself just changed and on whose behalf, so the watcher reports
 * Kiln's own writes as `operator` or `agent` rather than echoing them back as `external`.
 */
export class OriginLedger {
  private readonly marks = new Map<string, { origin: Origin; at: number }>();

  mark(absPath: string, origin: Origin): void {
    this.marks.set(absPath, { origin, at: Date.now() });
  }

  /** The origin of a change at absPath: a recent mark on it or on a folder containing it, else external. */
  originOf(absPath: string): Origin {
    const now = Date.now();
    for (let probe = absPath; ; probe = path.dirname(probe)) {
      const mark = this.marks.get(probe);
      if (mark && now - mark.at < MEMORY_MS) return mark.origin;
      if (path.dirname(probe) === probe) break;
    }
    this.prune(now);
    return 'external';
  }

  private prune(now: number): void {
    if (this.marks.size < 512) return;
    for (const [key, mark] of this.marks) if (now - mark.at >= MEMORY_MS) this.marks.delete(key);
  }
}

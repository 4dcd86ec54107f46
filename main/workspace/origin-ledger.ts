import { createHash } from 'node:crypto';
import { appendFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Origin } from '../../shared/contract';
import { createLogger } from '../log';

const log = createLogger('workspace.ledger');

const MEMORY_MS = 3000;
const JOURNAL_MAX_BYTES = 256 * 1024;

export interface OriginLedgerOptions {
  /**
   * A file that agents in other processes (the MCP server) append their writes to, so a Kiln window
   * on the same workspace marks those changes as the agent's rather than as external.
   */
  journalPath?: string;
}

/** The journal shared by every Kiln process on one workspace root (outside the project, in the temp folder). */
export function agentJournalPath(root: string): string {
  const key = createHash('sha256').update(root).digest('hex').slice(0, 16);
  return path.join(os.tmpdir(), `kiln-agent-writes-${key}.log`);
}

/**
 * Remembers which paths Kiln itself just changed and on whose behalf, so the watcher reports
 * Kiln's own writes as `operator` or `agent` rather than echoing them back as `external`.
 */
export class OriginLedger {
  private readonly marks = new Map<string, { origin: Origin; at: number }>();
  private journalCache = { mtimeMs: -1, entries: [] as { at: number; path: string }[] };
  private underWay = 0;
  private idleWaiters: Array<() => void> = [];
  /** Counts Kiln's operations as they start: a look at the disk taken while none started is not half of one. */
  operationsStarted = 0;

  constructor(private readonly options: OriginLedgerOptions = {}) {}

  /**
   * Runs one of Kiln's own changes to the workspace. Between its effect on disk and its report to the feed
   * lie a few event-loop turns; the watcher waits for `whenIdle` so it never reports that effect first.
   */
  async track<T>(operation: () => Promise<T>): Promise<T> {
    this.underWay++;
    this.operationsStarted++;
    try {
      return await operation();
    } finally {
      if (--this.underWay === 0) for (const wake of this.idleWaiters.splice(0)) wake();
    }
  }

  /** Resolves once none of Kiln's own operations is under way. */
  whenIdle(): Promise<void> {
    return this.underWay === 0 ? Promise.resolve() : new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  mark(absPath: string, origin: Origin): void {
    const at = Date.now();
    this.marks.set(absPath, { origin, at });
    if (origin === 'agent' && this.options.journalPath) this.appendJournal(at, absPath);
  }

  /** `mark` of many paths at once: one append to the journal for all of them. */
  markMany(absPaths: readonly string[], origin: Origin): void {
    const at = Date.now();
    for (const absPath of absPaths) this.marks.set(absPath, { origin, at });
    if (origin === 'agent' && this.options.journalPath && absPaths.length > 0) this.appendJournal(at, ...absPaths);
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
    return this.journalNames(absPath, now) ? 'agent' : 'external';
  }

  private journalNames(absPath: string, now: number): boolean {
    const file = this.options.journalPath;
    if (!file) return false;
    const mtimeMs = statSync(file, { throwIfNoEntry: false })?.mtimeMs;
    if (mtimeMs === undefined || now - mtimeMs > MEMORY_MS) return false;
    if (mtimeMs !== this.journalCache.mtimeMs) {
      const entries = readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => {
          const tab = line.indexOf('\t');
          return { at: Number(line.slice(0, tab)), path: line.slice(tab + 1) };
        });
      this.journalCache = { mtimeMs, entries };
    }
    return this.journalCache.entries.some(
      (entry) => now - entry.at < MEMORY_MS && (absPath === entry.path || absPath.startsWith(entry.path + path.sep)),
    );
  }

  private appendJournal(at: number, ...absPaths: string[]): void {
    const file = this.options.journalPath!;
    try {
      if ((statSync(file, { throwIfNoEntry: false })?.size ?? 0) > JOURNAL_MAX_BYTES) writeFileSync(file, '');
      appendFileSync(file, absPaths.map((absPath) => `${at}\t${absPath}\n`).join(''));
    } catch (err) {
      // The journal only improves labels; a failure to write it must not fail the write itself.
      log.debug("the agent's journal could not be written; other processes may label this change external", {
        err,
      });
    }
  }

  private prune(now: number): void {
    if (this.marks.size < 512) return;
    for (const [key, mark] of this.marks) if (now - mark.at >= MEMORY_MS) this.marks.delete(key);
  }
}

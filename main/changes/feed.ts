import { lstat, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { FsChange } from '../../shared/contract';
import { Emitter, type Event } from '../../shared/base/event';
import type { IDisposable } from '../../shared/base/lifecycle';
import { SerialQueue } from '../../shared/base/serial-queue';
import { createdPaths, isWithin, rekeyAfterMove } from '../../shared/fs-change';
import { logListenerError } from '../events';
import { hashText, type DiskState } from '../workspace';
import { createLogger } from '../log';

const log = createLogger('changes');
// Made once: it sits on the path of every observed change Kiln may have made itself.
const isGone = log.caught('the path is gone or unreadable when its report is checked; the report is news', null);

export interface ChangeFeedOptions {
  /** Absolute workspace root, to look at what the watcher reports. */
  root: string;
  /** How long Kiln's own creations, deletions and moves may echo back from the watcher. */
  echoWindowMs?: number;
}

/** Until when a path Kiln just made appear or vanish (with everything inside, for a folder) may echo. */
interface Expectation {
  presentUntil: number;
  absentUntil: number;
}

const WRITTEN_LIMIT = 4096;

/**
 * The one change feed. Kiln's own operations report what they did as they complete (`reportOwn`, with
 * the operator's or the agent's origin, a move as one `moved`); the watcher adds what it saw
 * (`reportObserved`). The watcher also sees Kiln's own operations: those echoes are dropped here, so each
 * change reaches subscribers once and a move never turns into a delete plus a create.
 */
export class ChangeFeed implements IDisposable {
  // One owner failing to apply a change must not keep it from the others.
  private readonly changed = new Emitter<FsChange>({ onListenerError: logListenerError });
  /** Every change, once, in the order it happened. */
  readonly onDidChange: Event<FsChange> = this.changed.event;
  // By path, so a report checks its own path and its ancestors, not every expectation: a run that
  // applies 2,000 files would otherwise pay 2,000 x 2,000 comparisons.
  private readonly expectations = new Map<string, Expectation>();
  private nextSweep = 0;
  /** How each file Kiln last wrote looked right after (size, mtime, identity, hash): a report still matching it is our echo. */
  private readonly written = new Map<string, DiskState>();
  // In arrival order: an echo check awaits the disk, and a later report must not overtake it.
  private readonly observed = new SerialQueue();
  private readonly echoWindowMs: number;

  constructor(private readonly options: ChangeFeedOptions) {
    this.echoWindowMs = options.echoWindowMs ?? 5000;
  }

  /**
   * Kiln did this; subscribers hear it at once, before the operation's caller does. `disk` is how the written file
   * looks now; for a batch (`createdFiles`), one per name, in order.
   */
  reportOwn(change: FsChange, disk?: DiskState | readonly DiskState[]): void {
    const until = Date.now() + this.echoWindowMs;
    switch (change.type) {
      case 'createdFiles': {
        // Each file's echo is its own: the watcher reports them one by one.
        const paths = createdPaths(change);
        paths.forEach((rel, i) => {
          this.expect(rel, true, until);
          const state = Array.isArray(disk) ? (disk as readonly DiskState[])[i] : undefined;
          if (state) this.remember(rel, state);
        });
        this.publish(change);
        return;
      }
      case 'created':
        this.expect(change.path, true, until);
        break;
      case 'deleted':
        this.expect(change.path, false, until);
        for (const file of [...this.written.keys()]) if (isWithin(file, change.path)) this.written.delete(file);
        break;
      case 'moved':
        this.expect(change.from, false, until);
        this.expect(change.to, true, until);
        rekeyAfterMove(this.written, change.from, change.to);
        break;
      case 'updated':
        break;
    }
    if (disk && !Array.isArray(disk) && change.type !== 'moved') this.remember(change.path, disk as DiskState);
    this.publish(change);
  }

  /** The watcher saw this; it is published unless it is the echo of Kiln's own operation. */
  reportObserved(change: FsChange): Promise<void> {
    return this.observed.run(async () => {
      if (!(await this.isEcho(change))) this.publish(change);
    });
  }

  /** Resolves once every observed change reported so far has been published or dropped. */
  settled(): Promise<void> {
    return this.observed.whenIdle();
  }

  dispose(): void {
    this.changed.dispose();
  }

  private async isEcho(change: FsChange): Promise<boolean> {
    // A batch is only ever Kiln's own report; the watcher reports single paths, and a move of a file it knew.
    if (change.type === 'createdFiles') return false;
    const now = Date.now();
    // Kiln's own move seen by the watcher: the old path went and the new one came as Kiln made them.
    if (change.type === 'moved') return this.covers(change.from, false, now) && this.covers(change.to, true, now);
    const covering = (present: boolean) => this.covers(change.path, present, now);
    const mine = this.written.get(change.path);
    // Most reports are other programs' work on paths Kiln never touched: news, with no disk look needed.
    if (!mine && !covering(true) && !covering(false)) return false;
    const abs = path.join(this.options.root, change.path);
    const disk = await lstat(abs).catch(isGone);
    if (mine && disk?.isFile() && (change.type === 'updated' || change.type === 'created')) {
      // What is on disk is exactly what Kiln wrote: an echo, however late. Anything else is news.
      if (disk.size !== mine.size || disk.mtimeMs !== mine.mtimeMs) return false;
      // Same size and mtime prove nothing by themselves (a replacement can forge both): the same inode
      // untouched since (ctime) does; failing that, the content decides.
      if (disk.ino === mine.ino && disk.ctimeMs === mine.ctimeMs) return true;
      return (await readFile(abs).then(hashText, () => null)) === mine.hash;
    }
    switch (change.type) {
      case 'created':
      case 'updated':
        return disk !== null && covering(true);
      case 'deleted':
        // Gone as Kiln made it go, or a stale report of a path Kiln has since filled again.
        return disk === null ? covering(false) : covering(true);
    }
  }

  private expect(rel: string, present: boolean, until: number): void {
    const now = Date.now();
    if (now >= this.nextSweep) {
      // At most once per echo window: what expired leaves, so the map holds one window's work.
      for (const [key, e] of this.expectations)
        if (e.presentUntil <= now && e.absentUntil <= now) this.expectations.delete(key);
      this.nextSweep = now + this.echoWindowMs;
    }
    const e = this.expectations.get(rel) ?? { presentUntil: 0, absentUntil: 0 };
    if (present) e.presentUntil = Math.max(e.presentUntil, until);
    else e.absentUntil = Math.max(e.absentUntil, until);
    this.expectations.set(rel, e);
  }

  /** True when Kiln recently made `rel` (or a folder holding it) present, or absent. */
  private covers(rel: string, present: boolean, now: number): boolean {
    for (let at = rel; ; at = at.slice(0, Math.max(0, at.lastIndexOf('/')))) {
      const e = this.expectations.get(at);
      if (e && (present ? e.presentUntil : e.absentUntil) > now) return true;
      if (at === '') return false;
    }
  }

  private remember(rel: string, disk: DiskState): void {
    this.written.delete(rel);
    this.written.set(rel, disk);
    if (this.written.size > WRITTEN_LIMIT) this.written.delete(this.written.keys().next().value!);
  }

  private publish(change: FsChange): void {
    this.changed.fire(change);
  }
}

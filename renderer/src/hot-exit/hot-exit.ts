import type { Backup, KilnBridge } from '../../../shared/contract';
import type { OpenFile, OpenFilesStore } from '../editor';
import { textEditSteps, type TextEdit } from './text-edit';

const isNotebookPath = (path: string) => path.toLowerCase().endsWith('.ipynb');

/** How long after the last keystroke a dirty buffer is backed up: typing never waits for it. */
export const BACKUP_DEBOUNCE_MS = 750;

interface Tracked {
  /** The buffer last sent (or being sent); compared by identity, so a keystroke costs no string compare. */
  sent: string | null;
  /** The version main keeps `sent` under: the next backup goes as an edit of it. */
  version: string | null;
  timer: ReturnType<typeof setTimeout> | null;
  /** The debounce ran out and the send waits for the page to be idle (so a key typed now is not held up). */
  idle: boolean;
  /** A backup's edit being found in idle slices; `finish` completes it at once (and sends it). */
  diffing: { finish(): void } | null;
  /** The tab's id: a tab moved by a rename is the same tab, its backup follows in main. */
  id: number;
}

/** Runs `work` when the page is idle (at most a second later); at once where there is no idle callback. */
function whenIdle(work: () => void): void {
  if (typeof requestIdleCallback === 'function') requestIdleCallback(() => work(), { timeout: 1000 });
  else work();
}

/**
 * How long one idle slice of finding a backup's edit may run: a key pressed meanwhile waits for the slice to end
 * (an idle callback is not interrupted by input), so each is kept far under the millisecond typing can spare.
 */
const SLICE_MS = 0.3;

// process-wide: backup versions only grow and are named unique across windows (with the tag below).
let versions = 0;
const windowTag = Math.random().toString(36).slice(2, 10);
/** A name for one backup's text, unique across windows. */
const nextVersion = () => `${windowTag}-${++versions}`;

/**
 * Hot exit for text tabs: a dirty buffer is backed up to main shortly after typing stops, and its backup
 * goes when the buffer is saved, reverted or closed. Notebook tabs are kept by their own view.
 *
 * A backup crosses to main as one edit of a text main already has (the previous backup, or the file on disk for
 * the first), so typing in a 5 MB file sends a few bytes: encoding and sending the whole buffer stalled the page
 * 50-100 ms each time. Only when main lacks the base (restarted, or the disk moved on) does the whole text go.
 */
export class HotExit {
  private readonly tracked = new Map<string, Tracked>();
  private readonly unsubscribe: () => void;
  /** Restoring on start: the tabs reopened from backups are not backed up again until they change. */
  private restoring = false;
  /** Backups of files gone from disk, found by `restore`: listed as recovered files, not reopened. */
  recovered: Backup[] = [];

  constructor(
    private readonly bridge: KilnBridge,
    private readonly files: OpenFilesStore,
    private readonly debounceMs = BACKUP_DEBOUNCE_MS,
  ) {
    const following = files.subscribe(() => this.follow());
    // A key changes the state only when the dirty flag flips: each restarts a waiting backup's pause here, O(1).
    const typing = files.onDidEdit((path) => {
      const tracked = this.tracked.get(path);
      if (tracked?.timer) this.schedule(path, tracked);
    });
    this.unsubscribe = () => {
      following();
      typing.dispose();
    };
  }

  /**
   * Reopens every backed-up buffer (once, when the window opens); resolves with how many came back.
   * A backup whose file changed on disk opens in the conflict state; one whose file is gone is not reopened
   * but kept in `recovered` (the "Recovered files" list).
   */
  async restore(): Promise<number> {
    const { backups } = await this.bridge.request('backup.list', {});
    this.restoring = true;
    let restored = 0;
    try {
      for (const { missing, ...backup } of backups) {
        if (missing) {
          this.recovered.push(backup);
          continue;
        }
        if (isNotebookPath(backup.path)) {
          // Main keeps notebooks' backups and opens a notebook from its backup, dirty (conflicted if the disk moved on).
          await this.files.open(backup.path);
          restored++;
          continue;
        }
        await this.files.restoreUnsaved(backup.path, backup.text, backup.baseHash);
        const file = this.files.get(backup.path);
        if (file?.dirty) {
          restored++;
          // The backup main holds is this text only if the buffer came back as it was backed up.
          const version = file.buffer === backup.text ? (backup.version ?? null) : null;
          this.tracked.set(backup.path, {
            sent: file.buffer,
            version,
            timer: null,
            idle: false,
            diffing: null,
            id: file.id,
          });
        }
      }
    } finally {
      this.restoring = false;
    }
    this.follow();
    return restored;
  }

  /** Sends every pending backup now (the page is going away). */
  flush(): void {
    this.files.flushEdits();
    for (const [path, tracked] of this.tracked) {
      tracked.diffing?.finish();
      if (tracked.timer === null && !tracked.idle) continue;
      if (tracked.timer) clearTimeout(tracked.timer);
      tracked.timer = null;
      tracked.idle = false;
      const file = this.files.get(path);
      if (file) this.send(file, tracked, false);
    }
  }

  dispose(): void {
    this.unsubscribe();
    for (const tracked of this.tracked.values()) {
      if (tracked.timer) clearTimeout(tracked.timer);
      tracked.idle = false;
      tracked.diffing = null;
    }
  }

  private follow(): void {
    if (this.restoring) return;
    const open = new Map(this.files.getState().files.map((file) => [file.path, file]));
    for (const [path, tracked] of [...this.tracked]) {
      const file = open.get(path);
      if (file && file.dirty && !this.files.isOwned(path)) continue;
      // Saved, reverted or closed: its backup goes. A tab that moved keeps its backup (main moved it).
      if (tracked.timer) clearTimeout(tracked.timer);
      tracked.idle = false;
      tracked.diffing = null;
      this.tracked.delete(path);
      const moved = [...open.values()].some((other) => other.id === tracked.id && other.path !== path);
      if (!moved) void this.bridge.request('backup.discard', { path }).catch(() => undefined);
    }
    for (const file of open.values()) {
      if (!file.dirty || file.status !== 'ready' || file.binary || file.truncated || this.files.isOwned(file.path))
        continue;
      let tracked = this.tracked.get(file.path);
      if (!tracked) {
        tracked = { sent: null, version: null, timer: null, idle: false, diffing: null, id: file.id };
        this.tracked.set(file.path, tracked);
      }
      if (tracked.sent === file.buffer) continue;
      this.schedule(file.path, tracked);
    }
  }

  /** (Re)starts the pause after which the tab's buffer is backed up. */
  private schedule(path: string, tracked: Tracked): void {
    if (tracked.timer) clearTimeout(tracked.timer);
    tracked.timer = setTimeout(() => {
      tracked.timer = null;
      tracked.idle = true;
      whenIdle(() => {
        if (!tracked.idle) return;
        tracked.idle = false;
        // The keys the editor still holds belong in the backup.
        this.files.flushEdits();
        const now = this.files.get(path);
        if (now?.dirty) this.send(now, tracked, true);
      });
    }, this.debounceMs);
  }

  /** Sends the buffer's backup; `sliced`: its edit is found in idle slices, else at once (the page is going). */
  private send(file: OpenFile, tracked: Tracked, sliced: boolean): void {
    // One backup at a time per tab, so main gets them in order: the one still being found goes first.
    tracked.diffing?.finish();
    const text = file.buffer;
    // The base is the disk version the buffer was typed over, so a restore can tell if the disk moved on since.
    const baseHash = file.conflict?.kind === 'deleted' ? null : file.diskHash || null;
    const base =
      tracked.sent !== null && tracked.version !== null
        ? { text: tracked.sent, against: { version: tracked.version } }
        : file.diskHash && !file.conflict
          ? { text: file.diskText, against: { diskHash: file.diskHash } }
          : null;
    const version = nextVersion();
    tracked.sent = text;
    tracked.version = version;
    const lost = () => {
      // Only the newest send speaks for the tab: an older one's failure is overtaken by it.
      if (tracked.version !== version) return;
      tracked.sent = null;
      tracked.version = null;
    };
    if (!base) {
      this.sendWhole(file.path, text, baseHash, version, lost);
      return;
    }
    const path = file.path;
    const issue = (edit: TextEdit) => {
      tracked.diffing = null;
      void this.bridge
        .request('backup.patch', {
          path,
          baseHash,
          version,
          against: base.against,
          againstLength: base.text.length,
          ...edit,
        })
        .then(({ saved }) => {
          if (!saved && tracked.version === version) this.sendWhole(path, text, baseHash, version, lost);
        }, lost);
    };
    const steps = textEditSteps(base.text, text);
    const diffing = {
      finish: () => {
        let step = steps.next();
        while (!step.done) step = steps.next();
        issue(step.value);
      },
    };
    if (!sliced) {
      diffing.finish();
      return;
    }
    tracked.diffing = diffing;
    const slice = () => {
      // Finished meanwhile (flush, a newer send) or dropped (saved, closed).
      if (tracked.diffing !== diffing) return;
      const start = performance.now();
      do {
        const step = steps.next();
        if (step.done) {
          issue(step.value);
          return;
        }
      } while (performance.now() - start < SLICE_MS);
      whenIdle(slice);
    };
    whenIdle(slice);
  }

  private sendWhole(path: string, text: string, baseHash: string | null, version: string, lost: () => void): void {
    void this.bridge.request('backup.save', { path, text, baseHash, version }).catch(lost);
  }
}

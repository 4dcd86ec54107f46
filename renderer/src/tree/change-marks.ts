import type { FsChange, Origin } from '../../../shared/contract';
import { createdPaths, isWithin, rekeyAfterMove } from '../../../shared/fs-change';

const FLASH_MS = 1600;

/** A file an agent created, not yet opened: it keeps a "new" badge. */
export interface NewMark {
  origin: Origin;
}

/** A change that just happened: the row flashes in place. */
export interface FlashMark {
  origin: Origin;
  change: 'created' | 'updated' | 'moved';
}

/** Who made a change, as a tooltip says it. */
export function originText(origin: Origin): string {
  return origin === 'agent' ? 'the agent' : origin === 'operator' ? 'you' : 'another program';
}

export function newMarkTitle(mark: NewMark): string {
  return `Created by ${originText(mark.origin)}; new until you open it`;
}

/** A row's tooltip: its path, and who just changed it or created it. */
export function rowTitle(path: string, created: NewMark | undefined, flash: FlashMark | undefined): string {
  if (created) return `${path} — ${newMarkTitle(created).toLowerCase()}`;
  if (flash) return `${path} — ${flash.change} by ${originText(flash.origin)}`;
  return path;
}

/**
 * The explorer's marks for changes, from the change feed: a file an agent created keeps a "new" badge until the
 * operator opens it (like VS Code's untracked "U"); any change flashes its row for a moment. Both know their origin.
 * Marks follow moves and go with deletes. No UI here: the tree store owns one and the row view reads it.
 */
export class ChangeMarks {
  private readonly created = new Map<string, NewMark>();
  private readonly flashes = new Map<string, FlashMark>();
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();

  constructor(
    private readonly onChange: () => void,
    private readonly flashMs = FLASH_MS,
  ) {}

  newMarkOf(path: string): NewMark | undefined {
    return this.created.get(path);
  }

  flashOf(path: string): FlashMark | undefined {
    return this.flashes.get(path);
  }

  apply(change: FsChange): void {
    switch (change.type) {
      case 'created':
        if (change.origin === 'agent' && !change.isDir) this.created.set(change.path, { origin: change.origin });
        this.flash(change.path, { origin: change.origin, change: 'created' });
        break;
      case 'updated':
        this.flash(change.path, { origin: change.origin, change: 'updated' });
        break;
      case 'moved':
        this.rekey(change.from, change.to);
        this.flash(change.to, { origin: change.origin, change: 'moved' });
        break;
      case 'deleted':
        this.forget(change.path);
        break;
      case 'createdFiles':
        for (const path of createdPaths(change)) {
          if (change.origin === 'agent') this.created.set(path, { origin: change.origin });
          this.flash(path, { origin: change.origin, change: 'created' });
        }
        break;
    }
    this.onChange();
  }

  /** The operator opened the file: it is not new to them any more. */
  opened(path: string): void {
    if (this.created.delete(path)) this.onChange();
  }

  dispose(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private flash(path: string, mark: FlashMark): void {
    this.flashes.set(path, mark);
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (this.flashes.get(path) !== mark) return;
      this.flashes.delete(path);
      this.onChange();
    }, this.flashMs);
    this.timers.add(timer);
  }

  private rekey(from: string, to: string): void {
    rekeyAfterMove(this.created, from, to);
    rekeyAfterMove(this.flashes, from, to);
  }

  private forget(path: string): void {
    for (const marks of [this.created, this.flashes] as Map<string, unknown>[]) {
      for (const key of [...marks.keys()]) if (isWithin(key, path)) marks.delete(key);
    }
  }
}

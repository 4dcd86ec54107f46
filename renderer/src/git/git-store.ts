import type { GitFileState, GitStatus, KilnBridge } from '../../../shared/contract';

export interface GitDecoration {
  /** A state of the entry itself, or `contains` for a folder holding changes. */
  state: GitFileState | 'contains';
  /** The letter at the row's end (none for ignored entries and folders). */
  letter: string;
  /** The row's accessible description. */
  description: string;
}

const LETTERS: Record<GitFileState, string> = {
  modified: 'M', added: 'A', deleted: 'D', renamed: 'R', untracked: 'U', conflicted: '!', ignored: '',
};
const DESCRIPTIONS: Record<GitDecoration['state'], string> = {
  modified: 'Modified', added: 'Added', deleted: 'Deleted', renamed: 'Renamed', untracked: 'Untracked',
  conflicted: 'Conflict', ignored: 'Ignored', contains: 'Contains changes',
};

const NONE: GitStatus = { available: false, branch: null, files: {} };

/** The workspace's git status in the renderer: the tree's marks and the status bar's branch read it. */
export class GitStore {
  private status: GitStatus = NONE;
  /** Folders with a changed (not ignored) entry somewhere below. */
  private changedDirs = new Set<string>();
  private version = 0;
  private readonly listeners = new Set<() => void>();
  private readonly unsubscribe: () => void;

  constructor(bridge: KilnBridge) {
    this.unsubscribe = bridge.on('git.changed', (status) => this.set(status));
    void bridge.request('git.status', {}).then((status) => this.set(status), () => undefined);
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getStatus = (): GitStatus => this.status;

  /** Bumped on every change; views that depend on HEAD (the gutter) refresh on it. */
  getVersion = (): number => this.version;

  decorationOf(path: string, isDir: boolean): GitDecoration | null {
    const { files } = this.status;
    const own = files[path];
    if (own) return decoration(isDir && own !== 'ignored' && own !== 'untracked' ? 'contains' : own, isDir);
    // Inside an untracked or ignored folder, an entry is what its folder is.
    for (let p = path; p.includes('/'); ) {
      p = p.slice(0, p.lastIndexOf('/'));
      const state = files[p];
      if (state === 'untracked' || state === 'ignored') return decoration(state, isDir);
    }
    return isDir && this.changedDirs.has(path) ? decoration('contains', true) : null;
  }

  dispose(): void {
    this.unsubscribe();
  }

  private set(status: GitStatus): void {
    this.status = status;
    const dirs = new Set<string>();
    for (const [path, state] of Object.entries(status.files)) {
      if (state === 'ignored') continue;
      for (let p = path; p.includes('/'); ) {
        p = p.slice(0, p.lastIndexOf('/'));
        if (dirs.has(p)) break;
        dirs.add(p);
      }
    }
    this.changedDirs = dirs;
    this.version++;
    for (const listener of this.listeners) listener();
  }
}

function decoration(state: GitDecoration['state'], isDir: boolean): GitDecoration {
  const letter = state === 'contains' || (isDir && state !== 'untracked') ? '' : LETTERS[state];
  return { state, letter, description: DESCRIPTIONS[state] };
}

import type { GitFileState, GitStatus, KilnBridge } from '../../../shared/contract';
import { parentOf } from '../../../shared/paths';
import { Store, perBridge } from '../base';

export interface GitDecoration {
  /** A state of the entry itself, or `contains` for a folder holding changes. */
  state: GitFileState | 'contains';
  /** The letter at the row's end (none for ignored entries and folders). */
  letter: string;
  /** The row's accessible description. */
  description: string;
}

const LETTERS: Record<GitFileState, string> = {
  modified: 'M',
  added: 'A',
  deleted: 'D',
  renamed: 'R',
  untracked: 'U',
  conflicted: '!',
  ignored: '',
};
const DESCRIPTIONS: Record<GitDecoration['state'], string> = {
  modified: 'Modified',
  added: 'Added',
  deleted: 'Deleted',
  renamed: 'Renamed',
  untracked: 'Untracked',
  conflicted: 'Conflict',
  ignored: 'Ignored',
  contains: 'Contains changes',
};

export interface GitState {
  status: GitStatus;
  /** Folders with a changed (not ignored) entry somewhere below. */
  changedDirs: ReadonlySet<string>;
}

const NONE: GitStatus = { available: false, branch: null, head: null, files: {} };

/** The workspace's git status in the renderer: the tree's marks, the status bar's branch and the editor's gutter read it. */
export class GitStore extends Store<GitState> {
  constructor(bridge: KilnBridge) {
    super({ status: NONE, changedDirs: new Set() });
    this.own(bridge.on('git.changed', (status) => this.update(status)));
    void bridge.request('git.status', {}).then(
      (status) => this.update(status),
      () => undefined,
    );
  }

  private update(status: GitStatus): void {
    const dirs = new Set<string>();
    for (const [path, state] of Object.entries(status.files)) {
      if (state === 'ignored') continue;
      for (let p = parentOf(path); p; p = parentOf(p)) {
        if (dirs.has(p)) break;
        dirs.add(p);
      }
    }
    this.set({ status, changedDirs: dirs });
  }
}

export const useGitStore = perBridge((bridge) => new GitStore(bridge));

export function decorationOf(
  { status: { files }, changedDirs }: GitState,
  path: string,
  isDir: boolean,
): GitDecoration | null {
  const own = files[path];
  if (own) return decoration(isDir && own !== 'ignored' && own !== 'untracked' ? 'contains' : own, isDir);
  // Inside an untracked or ignored folder, an entry is what its folder is.
  for (let p = parentOf(path); p; p = parentOf(p)) {
    const state = files[p];
    if (state === 'untracked' || state === 'ignored') return decoration(state, isDir);
  }
  return isDir && changedDirs.has(path) ? decoration('contains', true) : null;
}

function decoration(state: GitDecoration['state'], isDir: boolean): GitDecoration {
  const letter = state === 'contains' || (isDir && state !== 'untracked') ? '' : LETTERS[state];
  return { state, letter, description: DESCRIPTIONS[state] };
}

import { createContext, useContext, useEffect, useMemo, useSyncExternalStore, type ReactNode } from 'react';
import { useBridge } from '../base';
import { GitStore, type GitDecoration } from './git-store';
import './git.css';

const GitContext = createContext<GitStore | null>(null);

export function GitProvider({ children }: { children: ReactNode }) {
  const bridge = useBridge();
  const store = useMemo(() => new GitStore(bridge), [bridge]);
  useEffect(() => () => store.dispose(), [store]);
  return <GitContext.Provider value={store}>{children}</GitContext.Provider>;
}

function useGitStore(): GitStore {
  const store = useContext(GitContext);
  if (!store) throw new Error('useGitStore outside GitProvider');
  return store;
}

/** A tree row's git state; re-renders the row only when the repository's status changes. */
export function useGitDecoration(path: string, isDir: boolean): GitDecoration | null {
  const store = useGitStore();
  useSyncExternalStore(store.subscribe, store.getVersion);
  return store.decorationOf(path, isDir);
}

/** Changes whenever git's status does (a save, a commit, a checkout). */
export function useGitVersion(): number {
  const store = useGitStore();
  return useSyncExternalStore(store.subscribe, store.getVersion);
}

export function useGitBranch(): string | null {
  const store = useGitStore();
  return useSyncExternalStore(store.subscribe, () => store.getStatus().branch);
}

/** The letter at the end of a tree row (M, U, A, D…), coloured by state; decoration, not the row's name. */
export function GitMark({ decoration }: { decoration: GitDecoration | null }) {
  if (!decoration?.letter) return null;
  return (
    <span className={`git-mark git-${decoration.state}`} aria-hidden title={decoration.description}>
      {decoration.letter}
    </span>
  );
}

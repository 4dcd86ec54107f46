import { useStore } from '../base';
import { decorationOf, useGitStore, type GitDecoration } from './git-store';
import './git.css';

const sameDecoration = (a: GitDecoration | null, b: GitDecoration | null) =>
  a?.state === b?.state && a?.letter === b?.letter;

/** A tree row's git state; re-renders the row only when its own decoration changes. */
export function useGitDecoration(path: string, isDir: boolean): GitDecoration | null {
  return useStore(useGitStore(), (state) => decorationOf(state, path, isDir), sameDecoration);
}

/**
 * Changes when what HEAD holds for this file may have: its own git state, the branch or HEAD's commit
 * (a checkout, or a commit that leaves the file modified). Other files' changes leave it alone.
 */
export function useGitStateOf(path: string): string {
  return useStore(
    useGitStore(),
    ({ status }) => `${status.branch ?? ''}\n${status.head ?? ''}\n${status.files[path] ?? 'clean'}`,
  );
}

export function useGitBranch(): string | null {
  return useStore(useGitStore(), (state) => state.status.branch);
}

/** The letter at the end of a tree row (M, U, A, D…), coloured by state; decoration, not the row's name. */
export function GitMark({ decoration }: { decoration: GitDecoration | null }) {
  if (!decoration?.letter) return null;
  return (
    // The letter is CSS content: it is decoration, not part of the row's name (WCAG 2.5.3 compares the two).
    <span
      className={`git-mark git-${decoration.state}`}
      aria-hidden
      title={decoration.description}
      data-letter={decoration.letter}
    />
  );
}

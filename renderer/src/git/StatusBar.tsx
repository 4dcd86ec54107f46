import type { ReactNode } from 'react';
import { BranchIcon } from '../ui';
import { useGitBranch } from './context';

/** The window's bottom line: the git branch, when there is a repository, then what other parts add. */
export function StatusBar({ children }: { children?: ReactNode }) {
  const branch = useGitBranch();
  return (
    <footer className="status-bar" aria-label="Status Bar">
      {branch && (
        <span
          className="status-item"
          role="status"
          aria-label={`Git branch: ${branch}`}
          title={`Git branch: ${branch}`}
        >
          <BranchIcon />
          {branch}
        </span>
      )}
      {children}
    </footer>
  );
}

import { Icon } from '../ui';
import { useGitBranch } from './context';

function BranchIcon() {
  return (
    <Icon size={14}>
      <circle cx="5" cy="3.5" r="1.6" fill="none" stroke="currentColor" />
      <circle cx="5" cy="12.5" r="1.6" fill="none" stroke="currentColor" />
      <circle cx="11" cy="5.5" r="1.6" fill="none" stroke="currentColor" />
      <path d="M5 5.1v5.8M11 7.1c0 2.4-6 1.6-6 3.8" fill="none" stroke="currentColor" />
    </Icon>
  );
}

/** The window's bottom line: the git branch, when there is a repository. */
export function StatusBar() {
  const branch = useGitBranch();
  return (
    <footer className="status-bar" aria-label="Status Bar">
      {branch && (
        <span className="status-item" role="status" aria-label={`Git branch: ${branch}`} title={`Git branch: ${branch}`}>
          <BranchIcon />
          {branch}
        </span>
      )}
    </footer>
  );
}

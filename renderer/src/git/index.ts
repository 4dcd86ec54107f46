export { GitStore, type GitDecoration } from './git-store';
export { GitProvider, GitMark, useGitBranch, useGitDecoration, useGitVersion } from './context';
export { StatusBar } from './StatusBar';

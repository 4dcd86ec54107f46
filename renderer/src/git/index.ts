export type { GitDecoration } from './git-store';
export { GitMark, useGitBranch, useGitDecoration, useGitStateOf } from './context';
export { StatusBar } from './StatusBar';

export { ProblemsPanel, ProblemsStatusItem } from './ProblemsPanel';
export { problemsPanel, listProblems, countProblems } from './problems-store';

export { ProblemsPanel, ProblemsStatusItem } from './ProblemsPanel';
export { useProblemsPanel, listProblems, countProblems } from './problems-store';

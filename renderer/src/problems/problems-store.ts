import type { LspDiagnostic } from '../../../shared/contract';
import { perBridge, Store } from '../base';

/** Whether the Problems panel shows (Ctrl/Cmd+Shift+M toggles it, as in VS Code). */
export class ProblemsPanelStore extends Store<{ open: boolean }> {
  constructor() {
    super({ open: false });
  }
  toggle(): void {
    this.set({ open: !this.state.open });
  }
  show(): void {
    this.set({ open: true });
  }
  hide(): void {
    this.set({ open: false });
  }
}

/** Whether the window's Problems panel shows (a hook; `useProblemsPanel.of(bridge)` outside React). */
export const useProblemsPanel = perBridge(() => new ProblemsPanelStore());

export interface Problem extends LspDiagnostic {
  path: string;
}

const RANK = { error: 0, warning: 1, information: 2, hint: 3 } as const;

/**
 * What the Problems panel lists: errors, warnings and information per file, files in path order, each file's
 * problems by position. Hints (an unused import) only fade the code, as in VS Code: they are not problems.
 */
export function listProblems(diagnostics: Record<string, LspDiagnostic[]>): { path: string; problems: Problem[] }[] {
  return Object.keys(diagnostics)
    .sort((a, b) => a.localeCompare(b))
    .map((path) => ({
      path,
      problems: diagnostics[path]
        .filter((d) => d.severity !== 'hint')
        .map((d) => ({ ...d, path }))
        .sort(
          (a, b) =>
            a.range.start.line - b.range.start.line ||
            a.range.start.character - b.range.start.character ||
            RANK[a.severity] - RANK[b.severity],
        ),
    }))
    .filter((file) => file.problems.length > 0);
}

export function countProblems(diagnostics: Record<string, LspDiagnostic[]>): {
  errors: number;
  warnings: number;
  infos: number;
} {
  let errors = 0;
  let warnings = 0;
  let infos = 0;
  for (const list of Object.values(diagnostics)) {
    for (const d of list) {
      if (d.severity === 'error') errors++;
      else if (d.severity === 'warning') warnings++;
      else if (d.severity === 'information') infos++;
    }
  }
  return { errors, warnings, infos };
}

import path from 'node:path';
import type { ParsedVerbArgs, VerbCellRunResult, VerbResult } from '../../shared/contract/verbs';
import { KilnError } from '../../shared/errors';
import type { Sandbox } from '../sandbox';
import type { Workspace } from '../workspace';
import type { AgentAccess } from './agent-access';
import { compactOutputs, type NotebookVerbTarget } from './notebook-target';

export interface NotebookVerbsOptions {
  workspace: Workspace;
  access: AgentAccess;
  sandbox: Sandbox;
  /** The notebook service behind the verbs; without it they fail with E_NO_JUPYTER. */
  notebooks?: NotebookVerbTarget;
  trusted?: () => boolean;
  maxOutputChars: number;
}

/**
 * The notebook verbs: each names its notebook as the verbs design writes it, is refused on a protected notebook,
 * and runs a cell only where unsandboxed code may run (a notebook's kernel is never sandboxed).
 */
export class NotebookVerbs {
  constructor(private readonly options: NotebookVerbsOptions) {}

  async appendCell(args: ParsedVerbArgs<'append-notebook-cell'>): Promise<VerbResult<'append-notebook-cell'>> {
    return this.notebooks().appendCell(await this.notebookPath(args.notebook_name), args.source, args.cell_type);
  }

  async runNewCell(args: ParsedVerbArgs<'run-notebook-cell'>): Promise<VerbCellRunResult> {
    const notebook = await this.notebookPath(args.notebook_name);
    await this.refuseKernelRun();
    return this.compact(await this.notebooks().runNewCell(notebook, args.source));
  }

  async editCell(args: ParsedVerbArgs<'edit-notebook-cell'>): Promise<VerbResult<'edit-notebook-cell'>> {
    return this.notebooks().editCell(
      await this.notebookPath(args.notebook_name),
      args.cell_id,
      args.source,
      args.cell_type,
    );
  }

  async deleteCell(args: ParsedVerbArgs<'delete-notebook-cell'>): Promise<VerbResult<'delete-notebook-cell'>> {
    return this.notebooks().deleteCell(await this.notebookPath(args.notebook_name), args.cell_id);
  }

  async rerunCell(args: ParsedVerbArgs<'rerun-notebook-cell'>): Promise<VerbCellRunResult> {
    const notebook = await this.notebookPath(args.notebook_name);
    await this.refuseKernelRun();
    return this.compact(await this.notebooks().rerunCell(notebook, args.cell_id));
  }

  /**
   * A notebook's kernel is the operator's own process, never a sandbox, so a cell runs by execute-code's rule for
   * unsandboxed code: only in a trusted folder. Without a sandbox the refusal is execute-code's own; with one, the
   * agent is pointed at execute-code, which runs sandboxed there (and Kiln starts no kernel untrusted anyway).
   */
  private async refuseKernelRun(): Promise<void> {
    if (this.options.trusted?.() ?? true) return;
    const status = await this.options.sandbox.status();
    if (!status.available)
      throw new KilnError(
        'E_NO_SANDBOX',
        `Agent code is not run in an untrusted folder without a sandbox, and there is none here (${status.reason}); a notebook's kernel is never sandboxed. Trust the folder to run cells.`,
      );
    throw new KilnError(
      'E_NO_SANDBOX',
      "Notebook cells are not run in an untrusted folder: a notebook's kernel runs outside the sandbox, and Kiln starts no kernel until the operator trusts the folder. Use execute-code (it runs sandboxed here), or ask the operator to trust the folder.",
    );
  }

  private notebooks(): NotebookVerbTarget {
    if (!this.options.notebooks) {
      throw new KilnError('E_NO_JUPYTER', 'Notebook verbs are not available here: no notebook service is running');
    }
    return this.options.notebooks;
  }

  /**
   * `notebook_name` as the verbs design writes it: "x" is x.ipynb; any other extension is not a notebook. Every
   * notebook verb changes the notebook, so a protected one is refused.
   */
  private async notebookPath(given: string): Promise<string> {
    const rel = this.options.workspace.normalize(given);
    if (/\.[^./]+$/.test(path.posix.basename(rel)) && !rel.toLowerCase().endsWith('.ipynb'))
      throw new KilnError('E_BAD_REQUEST', `"${rel}" is not a notebook (.ipynb)`);
    const notebook = rel.toLowerCase().endsWith('.ipynb') ? rel : `${rel}.ipynb`;
    await this.options.access.refuseIf(notebook, 'write');
    return notebook;
  }

  private compact(result: Omit<VerbCellRunResult, 'sandboxed'>): VerbCellRunResult {
    return {
      ...result,
      outputs: compactOutputs(result.outputs, this.options.maxOutputChars),
      sandboxed: false,
    };
  }
}

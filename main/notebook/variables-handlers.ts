import type { variablesRequests } from '../../shared/contract';
import type { HandlersFor } from '../router';
import type { NotebookService } from './service';

/** The Variables view: what a notebook's live kernel holds, asked silently and never while a cell runs. */
export function variablesHandlers(svc: NotebookService): HandlersFor<keyof typeof variablesRequests> {
  return {
    'notebook.variables': async ({ path, all }) => (await svc.variables(path)).list(all),
    'notebook.expandVariable': async ({ path, ref, offset }) => (await svc.variables(path)).expand(ref, offset),
    'notebook.variableValue': async ({ path, name }) => (await svc.variables(path)).value(name),
  };
}

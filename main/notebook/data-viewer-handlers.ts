import type { dataViewerRequests, VariablesMiss } from '../../shared/contract';
import type { HandlersFor } from '../router';
import type { NotebookFiles } from './open-notebook';
import { UNTRUSTED_KERNEL_MESSAGE, type NotebookService } from './service';

/**
 * The data viewer: pages, summaries and CSV exports of a notebook kernel's frames, computed kernel-side. An export
 * is written through the workspace as the operator's write (history and change feed as any save).
 */
export function dataViewerHandlers(
  svc: NotebookService,
  workspace: Pick<NotebookFiles, 'write'>,
): HandlersFor<keyof typeof dataViewerRequests> {
  // Untrusted, no kernel runs: said as such, not as "no kernel yet" (running a cell would not start one).
  const untrusted = (): VariablesMiss | null =>
    svc.kernelsAllowed() ? null : { status: 'unavailable', message: UNTRUSTED_KERNEL_MESSAGE };
  return {
    'notebook.dataPage': async ({ path, name, sort, filters, offset, limit }) =>
      untrusted() ?? (await svc.dataViewer(path)).page(name, { sort, filters }, offset, limit),
    'notebook.dataSummary': async ({ path, name }) => untrusted() ?? (await svc.dataViewer(path)).summary(name),
    'notebook.dataExport': async ({ path, name, sort, filters, to }) => {
      const refused = untrusted();
      if (refused) return refused;
      const answer = await (await svc.dataViewer(path)).csv(name, { sort, filters });
      if (answer.status !== 'ok') return answer;
      const written = await workspace.write(to, answer.csv, { origin: 'operator', createParents: true });
      return { status: 'ok', path: written.path, rows: answer.rows, hash: written.hash };
    },
  };
}

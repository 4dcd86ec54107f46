import type { kernelAssistRequests } from '../../shared/contract';
import type { HandlersFor } from '../router';
import type { NotebookService } from './service';

/** Completion and inspection from a notebook's live kernel (the renderer's suggest, hover and signature help). */
export function kernelAssistHandlers(svc: NotebookService): HandlersFor<keyof typeof kernelAssistRequests> {
  return {
    'notebook.complete': async ({ path, code, cursor, requestId }) =>
      (await svc.assist(path)).complete(code, cursor, requestId),
    'notebook.inspect': async ({ path, code, cursor, detailLevel, requestId }) =>
      (await svc.assist(path)).inspect(code, cursor, detailLevel, requestId),
    'notebook.cancelAssist': async ({ path, requestId }) => ({ cancelled: (await svc.assist(path)).cancel(requestId) }),
  };
}

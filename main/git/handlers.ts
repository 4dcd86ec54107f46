import type { gitRequests } from '../../shared/contract';
import type { HandlersFor } from '../router';
import type { NotebookMergeService } from './notebook-merge';
import type { GitService } from './service';

export function gitHandlers(git: GitService, merges: NotebookMergeService): HandlersFor<keyof typeof gitRequests> {
  return {
    'git.status': () => git.status(),
    'git.notebookMerge': ({ path }) => merges.merge(path),
    'git.saveNotebookMerge': ({ path, ...args }) => merges.save(path, args),
    'git.stage': ({ path }) => merges.stage(path),
    'git.openChanges': ({ path }) => merges.openChanges(path),
  };
}

import type { gitRequests } from '../../shared/contract';
import type { HandlersFor } from '../router';
import type { GitService } from './service';

export function gitHandlers(git: GitService): HandlersFor<keyof typeof gitRequests> {
  return {
    'git.status': () => git.status(),
  };
}

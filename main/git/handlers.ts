import type { HandlersFor } from '../router';
import type { GitService } from './service';

/** git's status; the notebook channels of the git contract are main/notebook's (git-merge.ts). */
export function gitHandlers(git: GitService): HandlersFor<'git.status'> {
  return {
    'git.status': () => git.status(),
  };
}

import type { replaceRequests } from '../../shared/contract';
import type { HandlersFor } from '../router';
import type { ReplaceService } from './replace';

export function replaceHandlers(replace: ReplaceService): HandlersFor<keyof typeof replaceRequests> {
  return {
    'search.replace': ({ query, replacement, files }) => replace.replace(query, replacement, files),
    'search.undoReplace': ({ replaceId }) => replace.undoReplace(replaceId),
  };
}

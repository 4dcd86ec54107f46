import type { searchRequests } from '../../shared/contract';
import type { HandlersFor } from '../router';
import type { SearchService } from './service';

export function searchHandlers(search: SearchService): HandlersFor<keyof typeof searchRequests> {
  return {
    'search.start': ({ searchId, maxMatches, ...query }) => search.start(searchId, query, maxMatches),
    'search.cancel': ({ searchId }) => ({ cancelled: search.cancel(searchId) }),
  };
}

import type { quickOpenRequests } from '../../shared/contract';
import type { HandlersFor } from '../router';
import type { FileIndex } from './file-index';

export function quickOpenHandlers(index: FileIndex): HandlersFor<keyof typeof quickOpenRequests> {
  return {
    'quickOpen.search': ({ query, recent, limit }) => index.search(query, { recent, limit }),
  };
}

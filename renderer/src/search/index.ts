export { useSearchStore } from './search-store';
export { useReplaceStore } from './replace-store';
export { SearchView } from './SearchView';

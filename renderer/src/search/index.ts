export { useSearchStore } from './search-store';
export { SearchView } from './SearchView';

export { SearchStore, type SearchState } from './search-store';
export { SearchView } from './SearchView';

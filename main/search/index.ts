export { SearchService, type SearchServiceOptions } from './service';
export { searchHandlers } from './handlers';
export { ripgrepArgs } from './ripgrep';
export { parseQuery } from './query';

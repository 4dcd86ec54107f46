export { SearchService, type SearchServiceOptions } from './service';
export { searchHandlers } from './handlers';
export { ripgrepArgs } from './ripgrep';
export { parseQuery } from './query';
export { ReplaceService, type ReplaceServiceOptions } from './replace';
export { replaceHandlers } from './replace-handlers';

export { FileIndex, type FileIndexOptions, type SearchOptions } from './file-index';
export { quickOpenHandlers } from './handlers';

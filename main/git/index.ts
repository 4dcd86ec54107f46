export { GitService, type GitServiceOptions } from './service';
export { gitHandlers } from './handlers';
export { parsePorcelainV2 } from './porcelain';
export { gutterChanges } from './gutter-diff';

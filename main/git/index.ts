export { GitService, type GitServiceOptions } from './service';
export { gitHandlers } from './handlers';

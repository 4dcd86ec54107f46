export { GitService, type GitServiceOptions, type IndexStage } from './service';
export { gitHandlers } from './handlers';

export { GitService, type GitServiceOptions, type IndexStage } from './service';
export { NotebookMergeService, type GitFiles, type NotebookMergeServiceOptions } from './notebook-merge';
export { gitHandlers } from './handlers';

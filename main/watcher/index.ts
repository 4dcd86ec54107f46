export { refuseWatchesAfter, WorkspaceWatcher, type FolderWatchFactory, type WorkspaceWatcherOptions } from './watcher';
export { DEFAULT_WATCH_EXCLUDES } from './excludes';

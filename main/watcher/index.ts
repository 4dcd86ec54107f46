export { WorkspaceWatcher, type WorkspaceWatcherOptions } from './watcher';
export { refuseWatchesAfter, type FolderWatchFactory } from './folder-watch';
export { DEFAULT_WATCH_EXCLUDES } from './excludes';
export { WatchService, type WatchServiceOptions } from './watch-service';

export { WorkspaceWatcher, type WorkspaceWatcherOptions } from './watcher';

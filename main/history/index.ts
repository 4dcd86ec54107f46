export { CallBatches, currentWriteCause, MCP_BATCH_GAP_MS, withWriteCause, type WriteCause } from './cause';
export { followingExcludes, historyCreationRecorder, historyExcludes, historyRecorder } from './recorder';
export { HistoryService, historyHandlers } from './service';
export { DEFAULT_HISTORY_LIMITS, HistoryStore, type HistoryLimits, type RecordRequest } from './store';
export { BackupStore, MAX_BACKUPS } from './backups';
export { TurnUndo, undoCheckpoint } from './undo';
export { NOTEBOOK_BACKUP_DEBOUNCE_MS, NotebookBackups } from './notebook-backups';
export { WindowCloseState, windowCloseHandlers } from './window-close';
export { UnsavedAgentEdits, type UnsavedAgentEdit } from './unsaved-agent-edits';

export { BACKUP_DEBOUNCE_MS, HotExit } from './hot-exit';
export { useHotExit } from './use-hot-exit';
export { AUTO_SAVE_DELAY_MS, AutoSave, type AutoSaveMode } from './auto-save';
export { RecoveredFilesStore, useRecoveredFiles } from './recovered-files';
export { RecoveredFilesPanel } from './RecoveredFilesPanel';

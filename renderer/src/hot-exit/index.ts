export { BACKUP_DEBOUNCE_MS, HotExit } from './hot-exit';
export { useHotExit } from './use-hot-exit';

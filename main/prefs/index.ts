export { PrefsService, MemoryStore, DEFAULT_PREFS, type KeyValueStore, type PrefsChange } from './prefs';

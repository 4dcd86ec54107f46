export { PrefsService, MemoryStore, DEFAULT_PREFS, type KeyValueStore } from './prefs';

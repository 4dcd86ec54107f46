import { Emitter, type Event } from '../../shared/base/event';
import type { IDisposable } from '../../shared/base/lifecycle';
import { logListenerError } from '../events';
import type { Prefs } from '../../shared/contract';
import { Prefs as PrefsSchema } from '../../shared/contract';

/** The part of electron-store / conf that prefs need; both provide it with the same keys. */
export interface KeyValueStore {
  get(key: string): unknown;
  set(key: string, value: unknown): void;
}

export const DEFAULT_PREFS: Prefs = {
  showHidden: false,
  minimap: true,
  lastWorkspace: null,
  diffSideBySide: true,
  leftRailWidth: 280,
  rightRailWidth: 380,
  notebookHoverDelayMs: 600,
  notebookRecordTiming: false,
  autoSave: 'off',
  hotExit: true,
  'python.languageServer': 'on',
  'python.diagnostics': 'openFiles',
};

/** Built once: zod compiles an object schema on its first parse, and `get` runs on every cell run. */
const StoredPrefs = PrefsSchema.partial();

/** What `onDidChange` tells: the prefs now, and the keys a `set` was given. */
export interface PrefsChange {
  prefs: Prefs;
  changed: (keyof Prefs)[];
}

/** User preferences, kept in the app's data folder (never in the project). */
export class PrefsService implements IDisposable {
  private readonly changeEmitter = new Emitter<PrefsChange>({ onListenerError: logListenerError });
  /** Fired after each `set`: the language server, for one, follows its keys. */
  readonly onDidChange: Event<PrefsChange> = this.changeEmitter.event;

  constructor(private readonly store: KeyValueStore) {}

  get(): Prefs {
    const stored: Record<string, unknown> = {};
    for (const key of Object.keys(DEFAULT_PREFS)) {
      const value = this.store.get(key);
      if (value !== undefined) stored[key] = value;
    }
    const parsed = StoredPrefs.safeParse(stored);
    return { ...DEFAULT_PREFS, ...(parsed.success ? parsed.data : {}) };
  }

  set(changes: Partial<Prefs>): Prefs {
    for (const [key, value] of Object.entries(changes)) {
      if (value !== undefined) this.store.set(key, value);
    }
    const prefs = this.get();
    this.changeEmitter.fire({ prefs, changed: Object.keys(changes) as (keyof Prefs)[] });
    return prefs;
  }

  dispose(): void {
    this.changeEmitter.dispose();
  }
}

/** A store in plain memory, for tests and for hosts that must not persist. */
export class MemoryStore implements KeyValueStore {
  private readonly values = new Map<string, unknown>();
  get(key: string): unknown {
    return this.values.get(key);
  }
  set(key: string, value: unknown): void {
    this.values.set(key, value);
  }
}

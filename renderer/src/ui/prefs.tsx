import type { KilnBridge, Prefs } from '../../../shared/contract';
import { Store, perBridge, useStore } from '../base';

interface PrefsState {
  /** Null until the main side answered. */
  prefs: Prefs | null;
}

/** User preferences from the main side (kept in the app's data folder, never in the project). */
class PrefsStore extends Store<PrefsState> {
  constructor(private readonly bridge: KilnBridge) {
    super({ prefs: null });
    void bridge.request('prefs.get', {}).then(
      (prefs) => this.set({ prefs }),
      () => undefined,
    );
  }

  /** Shows the new value at once; main's answer (the whole set) follows. */
  setPref = <K extends keyof Prefs>(key: K, value: Prefs[K]): void => {
    if (this.state.prefs) this.set({ prefs: { ...this.state.prefs, [key]: value } });
    void this.bridge.request('prefs.set', { [key]: value } as Partial<Prefs>).then(
      (prefs) => this.set({ prefs }),
      () => undefined,
    );
  };
}

const usePrefsStore = perBridge((bridge) => new PrefsStore(bridge));

export function usePrefs(): { prefs: Prefs | null; setPref: PrefsStore['setPref'] } {
  const store = usePrefsStore();
  return { prefs: useStore(store, (s) => s.prefs), setPref: store.setPref };
}

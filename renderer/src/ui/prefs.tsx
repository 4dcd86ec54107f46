import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from 'react';
import type { Prefs } from '../../../shared/contract';
import { useBridge } from '../base';

interface PrefsApi {
  /** Null until the main side answered. */
  prefs: Prefs | null;
  setPref<K extends keyof Prefs>(key: K, value: Prefs[K]): void;
}

const PrefsContext = createContext<PrefsApi | null>(null);

/** User preferences from the main side (kept in the app's data folder, never in the project). */
export function PrefsProvider({ children }: { children: ReactNode }) {
  const bridge = useBridge();
  const [prefs, setPrefs] = useState<Prefs | null>(null);
  useEffect(() => {
    void bridge.request('prefs.get', {}).then(setPrefs);
  }, [bridge]);
  const setPref = useCallback(
    <K extends keyof Prefs>(key: K, value: Prefs[K]) => {
      setPrefs((prev) => (prev ? { ...prev, [key]: value } : prev));
      void bridge.request('prefs.set', { [key]: value } as Partial<Prefs>).then(setPrefs);
    },
    [bridge],
  );
  return <PrefsContext.Provider value={{ prefs, setPref }}>{children}</PrefsContext.Provider>;
}

export function usePrefs(): PrefsApi {
  const api = useContext(PrefsContext);
  if (!api) throw new Error('usePrefs outside PrefsProvider');
  return api;
}

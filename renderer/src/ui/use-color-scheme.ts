import { useSyncExternalStore } from 'react';

const query = typeof window !== 'undefined' ? window.matchMedia('(prefers-color-scheme: dark)') : null;

/** The OS light/dark setting, live. */
export function useColorScheme(): 'light' | 'dark' {
  return useSyncExternalStore(
    (notify) => {
      query?.addEventListener('change', notify);
      return () => query?.removeEventListener('change', notify);
    },
    () => (query?.matches ? 'dark' : 'light'),
  );
}

import { useEffect, useState } from 'react';

/**
 * A module loaded on first use: null until it is there, then the module (and a re-render). `wanted` false
 * loads nothing, so a notebook without charts or math never fetches their chunks.
 */
export function useLazy<T>(now: () => T | null, load: () => Promise<T>, wanted = true): T | null {
  const [value, setValue] = useState<T | null>(() => now());
  useEffect(() => {
    if (!wanted || value) return;
    let live = true;
    load().then(
      (module) => live && setValue(() => module),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [wanted, value, load]);
  return value;
}

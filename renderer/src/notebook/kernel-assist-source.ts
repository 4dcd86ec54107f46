import { useMemo, useRef } from 'react';
import type { KilnBridge, Prefs } from '../../../shared/contract';
import { DEFAULT_HOVER_DELAY_MS, type KernelAssistSource } from './kernel-assist';
import type { NotebookSession } from './notebook-session';

/** One notebook's kernel as its cells' editors ask it; stable for the session, reading the latest prefs. */
export function useKernelAssistSource(
  session: NotebookSession,
  bridge: KilnBridge,
  prefs: Prefs | null,
): KernelAssistSource {
  const latestPrefs = useRef(prefs);
  latestPrefs.current = prefs;
  return useMemo(
    () => ({
      bridge,
      path: () => session.path,
      kernelStatus: () => session.getState().kernel.status,
      hoverDelayMs: () => latestPrefs.current?.notebookHoverDelayMs ?? DEFAULT_HOVER_DELAY_MS,
    }),
    [session, bridge],
  );
}

import { useMemo, useRef } from 'react';
import type { KilnBridge, LspRange, Prefs } from '../../../shared/contract';
import { useOpenFilesStore, useReveals, type RevealTarget } from '../editor';
import { DEFAULT_HOVER_DELAY_MS, type KernelAssistSource } from './kernel-assist';
import type { NotebookSession } from './notebook-session';

/** A range as the editors reveal it: its first line, selected up to its end when that is on the same line. */
function revealTarget(range: LspRange): RevealTarget {
  const oneLine = range.start.line === range.end.line;
  return {
    line: range.start.line + 1,
    start: range.start.character,
    end: oneLine ? range.end.character : range.start.character,
  };
}

/** One notebook's kernel and language server as its cells' editors ask them; stable for the session, reading the latest prefs. */
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
      language: {
        bridge,
        path: () => session.path,
        flush: () => session.flushEdits(),
        openFile: (path, range) => {
          useReveals.of(bridge).request(path, revealTarget(range));
          void useOpenFilesStore.of(bridge).open(path);
        },
        revealCell: (cellId, range) => useReveals.of(bridge).request(session.path, { ...revealTarget(range), cellId }),
      },
    }),
    [session, bridge],
  );
}

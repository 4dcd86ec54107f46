import { useEffect } from 'react';
import { useBridge } from '../base';
import { useOpenFilesStore } from '../editor';
import { useToasts } from '../ui';
import { HotExit } from './hot-exit';

/**
 * Hot exit for the window: restores the unsaved buffers of the last run (saying so once), backs up dirty
 * buffers as the operator types, and sends what is pending when the page goes away. Closing or reloading
 * with unsaved tabs therefore asks nothing: they come back, as in VS Code with `files.hotExit`.
 */
export function useHotExit(): void {
  const bridge = useBridge();
  const files = useOpenFilesStore();
  const toasts = useToasts();
  useEffect(() => {
    const hotExit = new HotExit(bridge, files);
    let live = true;
    void hotExit.restore().then(
      (count) => {
        if (live && count > 0)
          toasts.show({
            kind: 'info',
            message: `Restored ${count} unsaved file${count === 1 ? '' : 's'}`,
            timeoutMs: 8000,
          });
      },
      () => undefined,
    );
    const flush = () => hotExit.flush();
    window.addEventListener('beforeunload', flush);
    window.addEventListener('pagehide', flush);
    return () => {
      live = false;
      window.removeEventListener('beforeunload', flush);
      window.removeEventListener('pagehide', flush);
      hotExit.dispose();
    };
  }, [bridge, files, toasts]);
}

import { useCallback, useEffect, useState } from 'react';
import type { WatchDegraded } from '../../../shared/contract';
import { useBridge, useKilnEvent } from '../base';

/**
 * One line along the bottom of the window when the OS refused file watches: what is no longer live and
 * how to raise the limit. It appears once; dismissing it keeps it away for this window.
 */
export function WatchStatusLine() {
  const bridge = useBridge();
  const [degraded, setDegraded] = useState<WatchDegraded | null>(null);
  const [dismissed, setDismissed] = useState(false);

  // The event may have fired before this window connected; ask once as well.
  useEffect(() => {
    void bridge.request('watch.status', {}).then((status) => {
      if (status.degraded) setDegraded(status.degraded);
    }, () => undefined);
  }, [bridge]);
  useKilnEvent('watch.degraded', useCallback((status: WatchDegraded) => setDegraded(status), []));

  if (!degraded || dismissed) return null;
  return (
    <div className="status-line" role="status" aria-label="File watching">
      <span className="status-line-text">{degraded.message}</span>
      <button type="button" className="status-line-close" aria-label="Dismiss" onClick={() => setDismissed(true)}>
        ×
      </button>
    </div>
  );
}

import { useEffect, useState } from 'react';
import type { KilnBridge, WatchDegraded } from '../../../shared/contract';
import { Store, aboutKiln, perBridge, useStore } from '../base';

/** Whether the OS refused file watches, as main last said; the event may fire before this window connected, so it asks once too. */
class WatchStatusStore extends Store<{ degraded: WatchDegraded | null }> {
  constructor(bridge: KilnBridge) {
    super({ degraded: null });
    this.own(bridge.on('watch.degraded', (degraded) => this.set({ degraded })));
    void bridge.request('watch.status', {}).then(
      (status) => status.degraded && this.set({ degraded: status.degraded }),
      () => undefined,
    );
  }
}

const useWatchStatus = perBridge((bridge) => new WatchStatusStore(bridge));

/**
 * One line along the bottom of the window when the OS refused file watches: what is no longer live and
 * how to raise the limit. It appears once; dismissing it keeps it away for this window.
 */
export function WatchStatusLine() {
  const degraded = useStore(useWatchStatus(), (s) => s.degraded);
  const [dismissed, setDismissed] = useState(false);
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

/** The web host's socket closed (Kiln stopped, the tunnel dropped): nothing works until a reload, so say so at once. */
export function ConnectionLostLine() {
  const [lost, setLost] = useState(false);
  useEffect(() => {
    const onLost = () => setLost(true);
    window.addEventListener('kiln-disconnected', onLost);
    return () => window.removeEventListener('kiln-disconnected', onLost);
  }, []);
  if (!lost) return null;
  return (
    <div className="status-line status-line-error" role="alert" aria-label="Connection">
      <span className="status-line-text">{aboutKiln('E_DISCONNECTED')}</span>
      <button type="button" className="btn btn-small" onClick={() => window.location.reload()}>
        Reload
      </button>
    </div>
  );
}

import { createContext, useContext, useEffect, type ReactNode } from 'react';
import type { EventChannel, EventPayload, KilnBridge } from '../../../shared/contract';

const BridgeContext = createContext<KilnBridge | null>(null);

export function BridgeProvider({ bridge, children }: { bridge: KilnBridge; children: ReactNode }) {
  return <BridgeContext.Provider value={bridge}>{children}</BridgeContext.Provider>;
}

export function useBridge(): KilnBridge {
  const bridge = useContext(BridgeContext);
  if (!bridge) throw new Error('useBridge outside BridgeProvider');
  return bridge;
}

/** Subscribes to one event channel for the component's lifetime. */
export function useKilnEvent<E extends EventChannel>(channel: E, listener: (payload: EventPayload<E>) => void): void {
  const bridge = useBridge();
  useEffect(() => bridge.on(channel, listener), [bridge, channel, listener]);
}

import { createContext, useContext, type ReactNode } from 'react';
import type { KilnBridge } from '../../../shared/contract';

const BridgeContext = createContext<KilnBridge | null>(null);

export function BridgeProvider({ bridge, children }: { bridge: KilnBridge; children: ReactNode }) {
  return <BridgeContext.Provider value={bridge}>{children}</BridgeContext.Provider>;
}

export function useBridge(): KilnBridge {
  const bridge = useContext(BridgeContext);
  if (!bridge) throw new Error('useBridge outside BridgeProvider');
  return bridge;
}

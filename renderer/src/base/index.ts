export { BridgeProvider, useBridge, useKilnEvent } from './bridge';
export { Store, perBridge, useStore, type Notify, type PerBridge, type Readable, type Unsubscribe } from './store';

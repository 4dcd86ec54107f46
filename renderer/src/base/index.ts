export { BridgeProvider, useBridge } from './bridge';
export { aboutKiln, errorText, shownError, type ShownError } from './error-text';
export { Store, perBridge, useStore, type Notify, type PerBridge, type Readable, type Unsubscribe } from './store';

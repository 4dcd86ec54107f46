export { DialogProvider, useAsk, type DialogButton, type DialogRequest } from './dialog';
export { ToastProvider, useToasts, messageOf, type Toasts, type ToastSpec } from './toast';
export { ContextMenu, IS_MAC, MOD, isModKey, type MenuItem } from './ContextMenu';
export { PrefsProvider, usePrefs } from './prefs';
export * from './icons';

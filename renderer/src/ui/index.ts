export { DialogProvider, useAsk, type DialogRequest } from './dialog';
export { ToastProvider, useToasts, type Toasts } from './toast';
export { ContextMenu, IS_MAC, MOD, isModKey, type MenuItem } from './ContextMenu';
export { usePrefs } from './prefs';
export { useColorScheme } from './use-color-scheme';
export { copyText, copyWorkspacePath } from './clipboard';
export * from './icons';
export { Picker, highlight, type PickerItem } from './Picker';
export { tabAnchor } from './tab-anchor';

export { OpenChangesSlot } from './OpenChangesSlot';
export { openChanges, openChangesMenuItem } from './menu-items';
export { OpenChangesStore, useOpenChangesStore, type OpenChangesState } from './open-changes-store';

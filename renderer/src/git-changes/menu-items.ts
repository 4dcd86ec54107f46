import type { MenuItemContribution } from '../commands';
import { useOpenFilesStore } from '../editor';
import { useOpenChangesStore } from './open-changes-store';

/** Opens the file (the overlay shows over the active file) and its HEAD ↔ working tree diff. */
export async function openChanges(bridge: Parameters<typeof useOpenChangesStore.of>[0], path: string): Promise<void> {
  await useOpenFilesStore.of(bridge).open(path);
  await useOpenChangesStore.of(bridge).show(path);
}

/** "Open Changes", from the editor's and the explorer's context menus (app/ adds it). */
export const openChangesMenuItem: MenuItemContribution = {
  id: 'openChanges',
  title: 'Open Changes',
  run: ({ bridge, path }) => openChanges(bridge, path),
};

import type { KilnBridge } from '../../../shared/contract';

/*
 * Menus other features add items to, as VS Code's MenuRegistry: the editor and the explorer show what is
 * registered here without importing the features that registered it (the app shell registers the Timeline's
 * "Open Timeline" in both), so a feature above the editor can put an item in the editor's menu.
 */

/** The editor's context menu (Monaco's), and the explorer's (where a contributed item applies to files). */
export type MenuId = 'editor/context' | 'explorer/context';

/** What a contributed item acts on: a file, in the window of `bridge`. */
export interface MenuTarget {
  bridge: KilnBridge;
  /** The file's workspace-relative path. */
  path: string;
}

export interface MenuItemContribution {
  /** Stable id within the menu: the explorer's command is `explorer.<id>`, the editor's action `kiln.<id>`. */
  id: string;
  title: string;
  run: (target: MenuTarget) => void | Promise<void>;
}

// process-wide: a contribution registry, filled once by each feature at start-up, the same for every window.
const menus = new Map<MenuId, MenuItemContribution[]>();

/** Adds an item to a menu, after those registered before it; registering an id again does nothing. */
export function registerMenuItem(menu: MenuId, item: MenuItemContribution): void {
  const items = menus.get(menu) ?? [];
  if (!items.some((i) => i.id === item.id)) menus.set(menu, [...items, item]);
}

export function menuItems(menu: MenuId): readonly MenuItemContribution[] {
  return menus.get(menu) ?? [];
}

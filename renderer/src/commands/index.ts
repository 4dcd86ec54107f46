export { CommandRegistry, type Command } from './registry';
export { formatKeys, parseKeys, matchesStroke, type KeyStroke } from './keys';
export { CommandsContext, useCommandRegistry, useCommands } from './context';
export { CommandPalette } from './CommandPalette';
export { CommandPaletteHost } from './CommandPaletteHost';
export { menuItems, registerMenuItem, type MenuId, type MenuItemContribution, type MenuTarget } from './menus';

import { formatKeys } from '../commands';
import { IS_MAC, type MenuItem } from '../ui';
import type { ExplorerCommand } from './tree-keys';

/** The explorer's context menu, in order: command ids from the command table, and separators. */
const MENU = [
  'explorer.newFile',
  'explorer.newFolder',
  'explorer.uploadFiles',
  'explorer.uploadFolder',
  'separator',
  'explorer.cut',
  'explorer.copy',
  'explorer.paste',
  'separator',
  'explorer.copyPath',
  'explorer.copyAbsolutePath',
  'separator',
  'explorer.download',
  'explorer.revealInFileManager',
  'explorer.openWithSystem',
  'separator',
  // What other features added (commands/menus.ts), in the order they were registered.
  'contributed',
  'separator',
  'explorer.rename',
  'explorer.delete',
] as const;

/** The menu's items from the same commands the keys and the palette run, each showing its key. */
export function explorerMenu(commands: ExplorerCommand[]): MenuItem[] {
  const contributed = commands.filter((c) => c.contributed).map((c) => c.id);
  const shown = MENU.flatMap((id) => (id === 'contributed' ? contributed : [id])).filter(
    (id) => id === 'separator' || commands.find((c) => c.id === id)?.available !== false,
  );
  // A host without a group's actions shows no empty group: no separator twice in a row.
  const items = shown.filter((id, i) => id !== 'separator' || shown[i - 1] !== 'separator');
  return items.map((id): MenuItem => {
    if (id === 'separator') return id;
    const command = commands.find((c) => c.id === id);
    if (!command) throw new Error(`No explorer command ${id}`);
    return {
      label: command.title,
      shortcut: command.keys ? formatKeys(command.keys, IS_MAC) : undefined,
      disabled: command.enabled ? !command.enabled() : undefined,
      onSelect: () => void command.run(),
    };
  });
}

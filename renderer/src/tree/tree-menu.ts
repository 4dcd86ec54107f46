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
  'explorer.openTimeline',
  'separator',
  'explorer.rename',
  'explorer.delete',
] as const;

/** The menu's items from the same commands the keys and the palette run, each showing its key. */
export function explorerMenu(commands: ExplorerCommand[]): MenuItem[] {
  return MENU.map((id): MenuItem => {
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

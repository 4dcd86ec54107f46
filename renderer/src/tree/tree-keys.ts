import { menuItems, type Command, type MenuItemContribution } from '../commands';
import type { Entry } from '../../../shared/contract';
import { parentOf } from './paths';

/** What the explorer's commands act on; Explorer provides it, fresh each render. */
export interface ExplorerActions {
  treeFocused(): boolean;
  focusedEntry(): Entry | undefined;
  /** The selection, else the focused row. */
  targets(): string[];
  /** A folder opens or closes, a file opens in the editor. */
  activate(entry: Entry): void;
  startRename(path: string): void;
  startCreate(kind: 'file' | 'dir'): void;
  remove(paths: string[]): void;
  clip(mode: 'copy' | 'cut', paths: string[]): void;
  hasClip(): boolean;
  paste(): void;
  undo(): void;
  selectAll(): void;
  clearSelection(): void;
  copyPath(absolute: boolean): void;
  /** Runs an item another feature added to the explorer's menu (the Timeline's "Open Timeline") on a file. */
  runContributed(item: MenuItemContribution, path: string): void;
  collapseAll(): void;
  /** Which host the window runs in: downloads are the web host's, desktop actions Electron's. */
  host: 'web' | 'electron';
  download(path: string): void;
  revealInFileManager(path: string): void;
  openWithSystem(path: string): void;
  hiddenShown(): boolean;
  toggleHidden(): void;
  /** Brings files (or a folder) from the operator's machine into the focused folder, through a chooser. */
  upload(folder: boolean): void;
}

/** An explorer command: a registry command, plus whether its context-menu item applies. */
export interface ExplorerCommand extends Command {
  /** For the context menu (where the tree has lost focus to the menu); absent: always. */
  enabled?: () => boolean;
  /** False where the host has no such action: left out of the menu (and the palette). */
  available?: boolean;
  /** Added by another feature (commands/menus.ts): the menu shows these in their own group. */
  contributed?: boolean;
}

/**
 * Every explorer command with its key, in one table: the registry dispatches the keys (only while the tree
 * has focus, as `when` says) and lists them in the command palette; the context menu shows them too.
 */
export function explorerCommands(
  a: ExplorerActions,
  contributed: readonly MenuItemContribution[] = menuItems('explorer/context'),
): ExplorerCommand[] {
  const focused = () => a.treeFocused() && Boolean(a.focusedEntry());
  const withTargets = () => a.treeFocused() && a.targets().length > 0;
  const onEntry = () => Boolean(a.focusedEntry());
  const command = (
    id: string,
    title: string,
    spec: Omit<ExplorerCommand, 'id' | 'title' | 'category'>,
  ): ExplorerCommand => ({ id: `explorer.${id}`, title, category: 'Explorer', ...spec });
  return [
    command('open', 'Open', { keys: 'Enter', when: focused, run: () => void withEntry(a, a.activate) }),
    command('newFile', 'New File', { run: () => a.startCreate('file') }),
    command('newFolder', 'New Folder', { run: () => a.startCreate('dir') }),
    command('cut', 'Cut', {
      keys: 'Mod+X',
      when: withTargets,
      enabled: onEntry,
      run: () => a.clip('cut', a.targets()),
    }),
    command('copy', 'Copy', {
      keys: 'Mod+C',
      when: withTargets,
      enabled: onEntry,
      run: () => a.clip('copy', a.targets()),
    }),
    command('paste', 'Paste', { keys: 'Mod+V', when: a.treeFocused, enabled: a.hasClip, run: a.paste }),
    command('uploadFiles', 'Upload Files…', { run: () => a.upload(false) }),
    command('uploadFolder', 'Upload Folder…', { run: () => a.upload(true) }),
    command('copyPath', 'Copy Path', { run: () => a.copyPath(false) }),
    command('copyAbsolutePath', 'Copy Absolute Path', { run: () => a.copyPath(true) }),
    command('download', 'Download', {
      available: a.host === 'web',
      palette: a.host === 'web',
      // On empty space: the whole workspace, as a zip.
      run: () => a.download(a.focusedEntry()?.path ?? ''),
    }),
    command('revealInFileManager', 'Reveal in File Manager', {
      available: a.host === 'electron',
      palette: a.host === 'electron',
      run: () => a.revealInFileManager(a.focusedEntry()?.path ?? ''),
    }),
    command('openWithSystem', 'Open with System Application', {
      available: a.host === 'electron',
      palette: a.host === 'electron',
      enabled: () => a.focusedEntry()?.kind === 'file',
      run: () => void withEntry(a, (e) => e.kind === 'file' && a.openWithSystem(e.path)),
    }),
    ...contributed.map((item) => ({
      ...command(item.id, item.title, {
        enabled: () => a.focusedEntry()?.kind === 'file',
        run: () => void withEntry(a, (e) => e.kind === 'file' && a.runContributed(item, e.path)),
      }),
      contributed: true,
    })),
    command('rename', 'Rename', {
      keys: 'F2',
      when: focused,
      enabled: onEntry,
      run: () => void withEntry(a, (e) => a.startRename(e.path)),
    }),
    command('delete', 'Delete', {
      keys: 'Delete',
      when: withTargets,
      enabled: onEntry,
      run: () => a.remove(a.targets()),
    }),
    // Finder's and VS Code's Cmd+Backspace; the palette lists Delete once.
    command('deleteWithBackspace', 'Delete', {
      keys: 'Meta+Backspace',
      palette: false,
      when: withTargets,
      run: () => a.remove(a.targets()),
    }),
    command('undo', 'Undo', { keys: 'Mod+Z', when: a.treeFocused, run: a.undo }),
    command('selectAll', 'Select All', { keys: 'Mod+A', when: a.treeFocused, run: a.selectAll }),
    command('clearSelection', 'Clear Selection', { keys: 'Escape', when: a.treeFocused, run: a.clearSelection }),
    command('collapseAll', 'Collapse Folders', { run: a.collapseAll }),
    {
      id: 'explorer.toggleHidden',
      title: a.hiddenShown() ? 'Hide hidden files' : 'Show hidden files',
      category: 'View',
      run: a.toggleHidden,
    },
  ];
}

function withEntry(a: ExplorerActions, act: (entry: Entry) => void): void {
  const entry = a.focusedEntry();
  if (entry) act(entry);
}

/** Moving through the rows: what the tree does with the keys that are navigation, not commands. */
export interface TreeNavigation {
  /** The focused row's index, -1 when none. */
  index: number;
  entry: Entry | undefined;
  /** Rows a PageUp/PageDown moves. */
  page: number;
  last: number;
  focusRow(index: number, extend: boolean): void;
  indexOf(path: string): number;
  isExpanded(dir: string): boolean;
  expand(dir: string): void;
  collapse(dir: string): void;
}

type NavigationKey = (nav: TreeNavigation, shift: boolean) => void;

const NAVIGATION: Record<string, NavigationKey> = {
  ArrowDown: (nav, shift) => nav.focusRow(nav.index + 1, shift),
  ArrowUp: (nav, shift) => nav.focusRow(nav.index < 0 ? 0 : nav.index - 1, shift),
  Home: (nav, shift) => nav.focusRow(0, shift),
  End: (nav, shift) => nav.focusRow(nav.last, shift),
  PageDown: (nav, shift) => nav.focusRow(nav.index + nav.page, shift),
  PageUp: (nav, shift) => nav.focusRow(nav.index - nav.page, shift),
  // Right opens a folder, or steps into an open one; Left closes it, or steps out to the parent.
  ArrowRight: ({ entry, ...nav }) => {
    if (entry?.kind !== 'dir') return;
    if (!nav.isExpanded(entry.path)) nav.expand(entry.path);
    else nav.focusRow(nav.index + 1, false);
  },
  ArrowLeft: ({ entry, ...nav }) => {
    if (!entry) return;
    if (entry.kind === 'dir' && nav.isExpanded(entry.path)) nav.collapse(entry.path);
    else if (entry.path.includes('/')) nav.focusRow(nav.indexOf(parentOf(entry.path)), false);
  },
};

/** Runs the navigation a key stands for (Shift extends the selection); false when the key is not one. */
export function navigate(key: string, shift: boolean, nav: TreeNavigation): boolean {
  const run = Object.hasOwn(NAVIGATION, key) ? NAVIGATION[key] : undefined;
  if (!run) return false;
  run(nav, shift);
  return true;
}

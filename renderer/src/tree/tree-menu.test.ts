import { describe, expect, it } from 'vitest';
import type { MenuItemContribution } from '../commands';
import { explorerCommands, type ExplorerActions } from './tree-keys';
import { explorerMenu } from './tree-menu';

function actions(host: 'web' | 'electron', ran: string[], kind: 'file' | 'dir' = 'file'): ExplorerActions {
  const entry = { name: 'a.txt', path: 'docs/a.txt', kind, size: 1, mtimeMs: 0, hidden: false };
  const noop = () => undefined;
  return {
    treeFocused: () => true,
    focusedEntry: () => entry,
    targets: () => [entry.path],
    activate: noop,
    startRename: noop,
    startCreate: noop,
    remove: noop,
    clip: noop,
    hasClip: () => false,
    paste: noop,
    undo: noop,
    selectAll: noop,
    clearSelection: noop,
    copyPath: noop,
    runContributed: (item, path) => ran.push(`${item.id} ${path}`),
    collapseAll: noop,
    upload: noop,
    host,
    download: (path) => ran.push(`download ${path}`),
    revealInFileManager: (path) => ran.push(`reveal ${path}`),
    openWithSystem: (path) => ran.push(`open ${path}`),
    hiddenShown: () => false,
    toggleHidden: noop,
  };
}

const labels = (host: 'web' | 'electron', ran: string[] = []) =>
  explorerMenu(explorerCommands(actions(host, ran))).map((item) => (item === 'separator' ? '—' : item.label));

describe('explorer menu by host', () => {
  it('offers Download in the web host, the desktop actions in Electron, never both', () => {
    expect(labels('web')).toContain('Download');
    expect(labels('web')).not.toContain('Reveal in File Manager');
    expect(labels('electron')).toEqual(
      expect.arrayContaining(['Reveal in File Manager', 'Open with System Application']),
    );
    expect(labels('electron')).not.toContain('Download');
    for (const host of ['web', 'electron'] as const) expect(labels(host).join(',')).not.toContain('—,—');
  });

  it('runs each on the entry it was opened on', () => {
    const ran: string[] = [];
    for (const host of ['web', 'electron'] as const) {
      for (const item of explorerMenu(explorerCommands(actions(host, ran))))
        if (item !== 'separator' && /Download|Reveal|System/.test(item.label)) item.onSelect();
    }
    expect(ran).toEqual(['download docs/a.txt', 'reveal docs/a.txt', 'open docs/a.txt']);
  });
});

describe('items other features add to the explorer menu', () => {
  const openTimeline: MenuItemContribution = { id: 'openTimeline', title: 'Open Timeline', run: () => undefined };
  const menu = (ran: string[], kind: 'file' | 'dir' = 'file') =>
    explorerMenu(explorerCommands(actions('web', ran, kind), [openTimeline]));

  it('shows them in their own group before Rename, and runs them on the file', () => {
    const ran: string[] = [];
    const items = menu(ran).map((item) => (item === 'separator' ? '—' : item.label));
    expect(items.slice(items.indexOf('Open Timeline') - 1, items.indexOf('Open Timeline') + 3)).toEqual([
      '—',
      'Open Timeline',
      '—',
      'Rename',
    ]);
    const item = menu(ran).find((i) => i !== 'separator' && i.label === 'Open Timeline');
    if (!item || item === 'separator') throw new Error('no Open Timeline');
    item.onSelect();
    expect(ran).toEqual(['openTimeline docs/a.txt']);
  });

  it('offers them on files only, and leaves no empty group without any', () => {
    const item = menu([], 'dir').find((i) => i !== 'separator' && i.label === 'Open Timeline');
    expect(item !== 'separator' && item?.disabled).toBe(true);
    expect(labels('web')).not.toContain('Open Timeline');
    expect(labels('web').join(',')).not.toContain('—,—');
  });

  it('lists them in the palette as explorer commands', () => {
    const command = explorerCommands(actions('web', []), [openTimeline]).find((c) => c.title === 'Open Timeline');
    expect(command).toMatchObject({ id: 'explorer.openTimeline', category: 'Explorer' });
  });
});

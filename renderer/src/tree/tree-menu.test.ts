import { describe, expect, it } from 'vitest';
import { explorerCommands, type ExplorerActions } from './tree-keys';
import { explorerMenu } from './tree-menu';

function actions(host: 'web' | 'electron', ran: string[]): ExplorerActions {
  const entry = { name: 'a.txt', path: 'docs/a.txt', kind: 'file' as const, size: 1, mtimeMs: 0, hidden: false };
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
    openTimeline: noop,
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

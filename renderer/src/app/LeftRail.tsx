import { useState } from 'react';
import type { SearchMatch } from '../../../shared/contract';
import { useCommands } from '../commands';
import { useReveals } from '../editor';
import { OutlineView } from '../outline';
import { SearchView, useReplaceStore, useSearchStore } from '../search';
import { RecoveredFilesPanel } from '../hot-exit';
import { TimelinePanel } from '../timeline';
import { Explorer } from '../tree';

type View = 'explorer' | 'search' | 'outline';

/** The left rail: the Explorer, or Find in Files. The Explorer stays mounted so its folders stay open. */
export function LeftRail({
  workspaceName,
  activePath,
  onOpen,
}: {
  workspaceName: string;
  activePath: string | null;
  onOpen: (path: string) => void;
}) {
  const search = useSearchStore();
  const reveals = useReveals();
  const replace = useReplaceStore();
  const [view, setView] = useState<View>('explorer');
  const [focusTick, setFocusTick] = useState(0);
  const showSearch = () => {
    setView('search');
    setFocusTick((n) => n + 1);
  };
  useCommands([
    {
      id: 'workbench.showExplorer',
      title: 'Show Explorer',
      category: 'View',
      keys: 'Mod+Shift+E',
      run: () => setView('explorer'),
    },
    { id: 'search.findInFiles', title: 'Find in Files', category: 'Search', keys: 'Mod+Shift+F', run: showSearch },
    {
      id: 'search.replaceInFiles',
      title: 'Replace in Files',
      category: 'Search',
      keys: 'Mod+Shift+H',
      run: () => {
        setView('search');
        replace.show(true, true);
      },
    },
    { id: 'outline.show', title: 'Show Outline', category: 'View', keys: 'Alt+Shift+O', run: () => setView('outline') },
    {
      id: 'search.cancel',
      title: 'Cancel Search',
      category: 'Search',
      when: () => search.getState().status === 'searching',
      run: () => search.cancel(),
    },
  ]);
  const openMatch = (path: string, match: SearchMatch) => {
    reveals.request(path, { line: match.line, start: match.start, end: match.end, cell: match.cell?.index });
    onOpen(path);
  };
  const views: { id: View; label: string; select: () => void }[] = [
    { id: 'explorer', label: 'Explorer', select: () => setView('explorer') },
    { id: 'search', label: 'Search', select: showSearch },
    { id: 'outline', label: 'Outline', select: () => setView('outline') },
  ];
  return (
    <aside className="left-rail" aria-label="Side Bar">
      <div className="view-switch" role="tablist" aria-label="Side Bar views">
        {views.map((v) => (
          <button
            key={v.id}
            type="button"
            role="tab"
            aria-selected={view === v.id}
            className={`view-switch-tab${view === v.id ? ' active' : ''}`}
            onClick={v.select}
          >
            {v.label}
          </button>
        ))}
      </div>
      <div className="left-view" hidden={view !== 'explorer'}>
        <Explorer workspaceName={workspaceName} activePath={activePath} onOpen={onOpen} />
        <TimelinePanel onOpen={onOpen} />
        <RecoveredFilesPanel />
      </div>
      {view === 'search' && <SearchView focusTick={focusTick} onOpenMatch={openMatch} />}
      {view === 'outline' && <OutlineView path={activePath} onOpen={onOpen} />}
    </aside>
  );
}

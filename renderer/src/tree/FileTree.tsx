import { useCallback, useEffect, useMemo, useState } from 'react';
import type { Entry, FsChange } from '../../../shared/contract';
import { useBridge, useKilnEvent } from '../app/bridge-context';

interface Row {
  entry: Entry;
  depth: number;
}

function parentOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}

/** First slice of the file tree: lazy folders, live from watcher events, click to open. */
export function FileTree({ onOpen, selected }: { onOpen: (path: string) => void; selected: string | null }) {
  const bridge = useBridge();
  const [children, setChildren] = useState<Map<string, Entry[]>>(new Map());
  const [expanded, setExpanded] = useState<Set<string>>(new Set(['']));

  const load = useCallback(
    async (dir: string) => {
      const entries = await bridge.request('workspace.list', { path: dir }).catch(() => null);
      setChildren((prev) => {
        const next = new Map(prev);
        if (entries) next.set(dir, entries);
        else next.delete(dir);
        return next;
      });
    },
    [bridge],
  );

  useEffect(() => {
    void load('');
  }, [load]);

  const onChange = useCallback(
    (change: FsChange) => {
      const dir = parentOf(change.path);
      if (children.has(dir)) void load(dir);
    },
    [children, load],
  );
  useKilnEvent('fs.change', onChange);

  const rows = useMemo(() => {
    const out: Row[] = [];
    const visit = (dir: string, depth: number) => {
      for (const entry of children.get(dir) ?? []) {
        out.push({ entry, depth });
        if (entry.kind === 'dir' && expanded.has(entry.path)) visit(entry.path, depth + 1);
      }
    };
    visit('', 0);
    return out;
  }, [children, expanded]);

  const toggle = (entry: Entry) => {
    if (entry.kind === 'file') {
      onOpen(entry.path);
      return;
    }
    setExpanded((prev) => {
      const next = new Set(prev);
      if (next.has(entry.path)) next.delete(entry.path);
      else {
        next.add(entry.path);
        void load(entry.path);
      }
      return next;
    });
  };

  return (
    <ul role="tree" aria-label="Files" className="tree">
      {rows.map(({ entry, depth }) => (
        <li
          key={entry.path}
          role="treeitem"
          aria-label={entry.name}
          aria-level={depth + 1}
          aria-expanded={entry.kind === 'dir' ? expanded.has(entry.path) : undefined}
          aria-selected={entry.path === selected}
          className="tree-row"
          style={{ paddingLeft: 8 + depth * 14 }}
          onClick={() => toggle(entry)}
        >
          <span className="tree-icon" aria-hidden>{entry.kind === 'dir' ? (expanded.has(entry.path) ? '▾' : '▸') : ' '}</span>
          {entry.name}
        </li>
      ))}
    </ul>
  );
}

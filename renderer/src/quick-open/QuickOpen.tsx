import { useCallback, useEffect, useRef, useState } from 'react';
import type { QuickOpenResult } from '../../../shared/contract';
import { useBridge, useKilnEvent } from '../base';
import { FileIcon, Picker, highlight, messageOf, type PickerItem } from '../ui';

/** Ctrl/Cmd+P: jump to any file of the workspace by typing part of its path. */
export function QuickOpen({ recent, onOpen, onClose }: {
  /** Recently opened files, most recent first. */
  recent: string[];
  onOpen: (path: string) => void;
  onClose: () => void;
}) {
  const bridge = useBridge();
  const [query, setQuery] = useState('');
  const [result, setResult] = useState<QuickOpenResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const asked = useRef(0);

  const search = useCallback(() => {
    // Answers can overtake each other; only the latest query's is shown.
    const ticket = ++asked.current;
    bridge.request('quickOpen.search', { query, recent, limit: 100 }).then(
      (r) => ticket === asked.current && (setResult(r), setError(null)),
      (err: unknown) => ticket === asked.current && setError(messageOf(err)),
    );
  }, [bridge, query, recent]);
  useEffect(search, [search]);
  // The first scan finished while the dialog was open: ask again over the whole workspace.
  useKilnEvent('quickOpen.indexed', search);

  const items: PickerItem[] = (result?.matches ?? []).map((m) => {
    const slash = m.path.lastIndexOf('/');
    const name = m.path.slice(slash + 1);
    const dir = slash >= 0 ? m.path.slice(0, slash) : '';
    return {
      id: m.path,
      label: m.path,
      content: (
        <span className="qo-row">
          <FileIcon name={name} />
          <span className="qo-name">{highlight(name, m.positions, slash + 1)}</span>
          {dir && <span className="qo-dir">{highlight(dir, m.positions)}</span>}
          {m.recent && <span className="qo-recent">recently opened</span>}
        </span>
      ),
    };
  });
  const status = error ?? (result?.indexing ? 'Indexing files…' : result && !items.length ? 'No matching files' : undefined);

  return (
    <Picker
      label="Quick Open"
      placeholder="Search files by name (fuzzy)"
      items={items}
      status={status}
      onQuery={setQuery}
      onPick={(item) => {
        onClose();
        onOpen(item.id);
      }}
      onClose={onClose}
    />
  );
}

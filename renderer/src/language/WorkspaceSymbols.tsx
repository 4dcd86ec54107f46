import { useEffect, useRef, useState } from 'react';
import type { WorkspaceSymbol } from '../../../shared/contract';
import { useBridge } from '../base';
import { Picker, type PickerItem } from '../ui';

/** Ctrl/Cmd+T: the workspace's Python symbols matching what is typed, from the language server. */
export function WorkspaceSymbols({
  onPick,
  onClose,
}: {
  onPick: (symbol: WorkspaceSymbol) => void;
  onClose: () => void;
}) {
  const bridge = useBridge();
  const [symbols, setSymbols] = useState<WorkspaceSymbol[]>([]);
  const [status, setStatus] = useState<string | undefined>('Type the name of a class, function or variable');
  const latest = useRef(0);
  const ids = useRef(0);
  const returnTo = useRef<Element | null>(document.activeElement);

  useEffect(() => () => (returnTo.current as HTMLElement | null)?.focus?.(), []);

  const query = (text: string) => {
    const requestId = ++ids.current;
    // A newer query supersedes this one at the server too.
    if (latest.current) void bridge.request('language.cancel', { requestId: latest.current }).catch(() => undefined);
    latest.current = requestId;
    if (!text.trim()) {
      setSymbols([]);
      setStatus('Type the name of a class, function or variable');
      return;
    }
    setStatus('Searching…');
    bridge.request('language.workspaceSymbols', { query: text, requestId }).then(
      (found) => {
        if (latest.current !== requestId) return;
        setSymbols(found.slice(0, 200));
        setStatus(found.length ? undefined : 'No matching symbols');
      },
      () => latest.current === requestId && setStatus('The Python language server did not answer'),
    );
  };

  const items: PickerItem[] = symbols.map((s, i) => ({
    id: String(i),
    label: `${s.name} ${s.location.path}:${s.location.range.start.line + 1}`,
    content: (
      <span className="qo-row">
        <span className={`symbol-kind symbol-kind-${s.kind}`}>{s.kind}</span>
        <span className="qo-name">{s.name}</span>
        {s.containerName && <span className="qo-dir">{s.containerName}</span>}
        <span className="qo-dir">
          {s.location.path}:{s.location.range.start.line + 1}
        </span>
      </span>
    ),
  }));
  return (
    <Picker
      label="Go to Symbol in Workspace"
      placeholder="Symbol name"
      items={items}
      status={status}
      onQuery={query}
      onPick={(item) => onPick(symbols[Number(item.id)])}
      onClose={onClose}
    />
  );
}

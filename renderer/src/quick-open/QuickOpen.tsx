import { nameOf, parentOf } from '../../../shared/paths';
import { useStore } from '../base';
import { FileIcon, Picker, highlight, type PickerItem } from '../ui';
import { useQuickOpenStore } from './quick-open-store';

/** Ctrl/Cmd+P: jump to any file of the workspace by typing part of its path. */
export function QuickOpen({ onOpen, onClose }: { onOpen: (path: string) => void; onClose: () => void }) {
  const store = useQuickOpenStore();
  const result = useStore(store, (s) => s.result);
  const error = useStore(store, (s) => s.error);

  const items: PickerItem[] = (result?.matches ?? []).map((m) => {
    const name = nameOf(m.path);
    const dir = parentOf(m.path);
    return {
      id: m.path,
      // The name reads as the row shows it (WCAG 2.5.3: a speech user says what they see).
      label: [name, dir, m.recent ? 'recently opened' : ''].filter(Boolean).join(' '),
      namedByContent: true,
      content: (
        <span className="qo-row">
          <FileIcon name={name} />
          <span className="qo-name">{highlight(name, m.positions, m.path.length - name.length)}</span>
          {/* Spaces between the parts, so the row's text reads as its name does. */}
          {dir && <span className="qo-dir"> {highlight(dir, m.positions)}</span>}
          {m.recent && <span className="qo-recent"> recently opened</span>}
        </span>
      ),
    };
  });
  const status =
    error ?? (result?.indexing ? 'Indexing files…' : result && !items.length ? 'No matching files' : undefined);

  return (
    <Picker
      label="Quick Open"
      placeholder="Search files by name (fuzzy)"
      items={items}
      status={status}
      onQuery={(query) => store.setQuery(query)}
      onPick={(item) => {
        onClose();
        onOpen(item.id);
      }}
      onClose={onClose}
    />
  );
}

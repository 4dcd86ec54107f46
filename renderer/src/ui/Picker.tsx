import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import './picker.css';

export interface PickerItem {
  id: string;
  /** The option's accessible name. */
  label: string;
  /** What the row shows; the label when absent. */
  content?: ReactNode;
  /** Shown at the row's end (a key binding); not part of the name. */
  hint?: string;
  /**
   * The content reads exactly as the label: the option is named by it (no aria-label), so its name is its visible
   * text however the content is split (match highlights), as WCAG 2.5.3 asks.
   */
  namedByContent?: boolean;
}

/**
 * The quick-pick dialog behind Quick Open and the command palette: a combobox over a listbox of options.
 * Arrows move, Enter picks, Escape closes; focus goes back where it was.
 */
export function Picker({
  label,
  placeholder,
  items,
  status,
  onQuery,
  onPick,
  onClose,
}: {
  label: string;
  placeholder: string;
  items: PickerItem[];
  /** A line under the list: "Indexing…", "No matching files". */
  status?: string;
  onQuery: (query: string) => void;
  onPick: (item: PickerItem) => void;
  onClose: () => void;
}) {
  const [query, setQuery] = useState('');
  const [active, setActive] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  const list = useRef<HTMLUListElement>(null);
  const listId = useId();

  useEffect(() => {
    input.current?.focus();
  }, []);
  useEffect(() => setActive((a) => Math.min(a, Math.max(0, items.length - 1))), [items.length]);
  useEffect(() => {
    list.current?.querySelector(`[data-index="${active}"]`)?.scrollIntoView({ block: 'nearest' });
  }, [active]);

  const onKeyDown = (event: React.KeyboardEvent) => {
    const page = 10;
    if (event.key === 'ArrowDown') setActive((a) => (items.length ? (a + 1) % items.length : 0));
    else if (event.key === 'ArrowUp') setActive((a) => (items.length ? (a - 1 + items.length) % items.length : 0));
    else if (event.key === 'PageDown') setActive((a) => Math.min(a + page, items.length - 1));
    else if (event.key === 'PageUp') setActive((a) => Math.max(a - page, 0));
    else if (event.key === 'Enter') {
      if (items[active]) onPick(items[active]);
    } else if (event.key === 'Escape') onClose();
    else if (event.key === 'Tab') {
      // Nothing else in the dialog takes focus.
    } else return;
    event.preventDefault();
    event.stopPropagation();
  };

  return (
    <div className="modal-backdrop picker-backdrop" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div className="picker" role="dialog" aria-modal="true" aria-label={label}>
        <input
          ref={input}
          className="picker-input"
          role="combobox"
          aria-label={label}
          aria-expanded="true"
          aria-controls={listId}
          aria-autocomplete="list"
          aria-activedescendant={items.length ? `${listId}-${active}` : undefined}
          placeholder={placeholder}
          spellCheck={false}
          value={query}
          onChange={(e) => {
            setQuery(e.target.value);
            setActive(0);
            onQuery(e.target.value);
          }}
          onKeyDown={onKeyDown}
          onBlur={(e) => {
            if (!e.currentTarget.closest('.picker')?.contains(e.relatedTarget as Node | null)) onClose();
          }}
        />
        <ul ref={list} id={listId} role="listbox" aria-label={label} className="picker-options">
          {items.map((item, i) => (
            <li
              key={item.id}
              id={`${listId}-${i}`}
              data-index={i}
              role="option"
              aria-label={item.namedByContent ? undefined : item.label}
              aria-selected={i === active}
              className={`picker-option${i === active ? ' active' : ''}`}
              onMouseDown={(e) => e.preventDefault()}
              onMouseMove={() => i !== active && setActive(i)}
              onClick={() => onPick(item)}
            >
              <span className="picker-option-content">{item.content ?? item.label}</span>
              {/* The key is CSS content, so the option's visible text is its name (as the context menu's hints). */}
              {item.hint && <kbd className="picker-hint" aria-hidden data-hint={item.hint} />}
            </li>
          ))}
        </ul>
        {status && (
          <div className="picker-status" role="status">
            {status}
          </div>
        )}
      </div>
    </div>
  );
}

/** Wraps the characters at `positions` in <mark>, for a matcher's highlights. */
export function highlight(text: string, positions: readonly number[], offset = 0): ReactNode {
  if (!positions.length) return text;
  const marked = new Set(positions.map((p) => p - offset));
  const out: ReactNode[] = [];
  let run = '';
  let runMarked = false;
  const flush = (i: number) => {
    if (run) out.push(runMarked ? <mark key={i}>{run}</mark> : run);
    run = '';
  };
  for (let i = 0; i < text.length; i++) {
    const m = marked.has(i);
    if (m !== runMarked) {
      flush(i);
      runMarked = m;
    }
    run += text[i];
  }
  flush(text.length);
  return out;
}

import { useEffect, useMemo, useRef, useState } from 'react';
import { ChevronIcon } from '../ui';

/** What picking an option may do next: clear the filter for a new list (a folder drilled into). */
export interface CrumbPick {
  clearFilter(): void;
}

/**
 * A breadcrumb segment's dropdown: a filter box over a listbox of options, Up/Down/Home/End to move, Enter to pick,
 * Escape to close; the mouse makes an option active without taking focus from the filter. Both kinds of segment
 * use it: a path segment lists its folder's entries, a symbol segment its sibling symbols.
 */
export function CrumbDropdown<T extends { name: string }>({
  items,
  error = null,
  listId,
  label,
  head,
  keyOf,
  iconOf,
  isCurrent,
  hasMore,
  maxOptions = Infinity,
  onPick,
  onKey,
  onClose,
}: {
  /** Null while loading. */
  items: readonly T[] | null;
  error?: string | null;
  listId: string;
  /** The listbox's accessible name. */
  label: string;
  /** Shown before the filter (a folder list's folder). */
  head?: React.ReactNode;
  keyOf(item: T, index: number): string;
  iconOf(item: T): React.ReactNode;
  /** The option the segment stands for: active when the list opens. */
  isCurrent(item: T): boolean;
  /** Picking it opens a further list (a folder). */
  hasMore?(item: T): boolean;
  /** Options shown at most; the rest are counted ("type to filter"). */
  maxOptions?: number;
  onPick(item: T, pick: CrumbPick): void;
  /** A key of the filter box the dropdown itself does not handle; true when handled. */
  onKey?(key: string, filter: string): boolean;
  onClose(refocus: boolean): void;
}) {
  const [filter, setFilterText] = useState('');
  const [active, setActive] = useState(0);
  const box = useRef<HTMLDivElement>(null);
  const input = useRef<HTMLInputElement>(null);
  const list = useRef<HTMLUListElement>(null);
  const matches = useMemo(() => {
    const all = items ?? [];
    const needle = filter.trim().toLowerCase();
    return needle ? all.filter((item) => item.name.toLowerCase().includes(needle)) : all;
  }, [items, filter]);
  const shown = matches.slice(0, maxOptions);
  const setFilter = (value: string) => {
    setFilterText(value);
    setActive(0);
  };

  // A new list (loaded, or another folder's) opens on the option the segment stands for.
  const current = useRef(isCurrent);
  current.current = isCurrent;
  useEffect(() => {
    if (items)
      setActive(
        Math.max(
          0,
          items.findIndex((item) => current.current(item)),
        ),
      );
  }, [items]);

  // The dropdown takes focus into its filter and closes on a click outside it (its own segment's button toggles it).
  useEffect(() => {
    input.current?.focus();
    const outside = (event: MouseEvent) => {
      if (!box.current?.contains(event.target as Node) && !(event.target as HTMLElement).closest?.('.crumb-btn.open'))
        onClose(false);
    };
    window.addEventListener('mousedown', outside, true);
    return () => window.removeEventListener('mousedown', outside, true);
  }, [onClose]);

  useEffect(() => {
    list.current?.querySelector(`[data-index="${active}"]`)?.scrollIntoView({ block: 'nearest' });
  }, [active, shown.length]);

  const pick = (item: T | undefined) => {
    if (!item) return;
    onPick(item, {
      clearFilter: () => {
        setFilter('');
        input.current?.focus();
      },
    });
  };

  const onKeyDown = (event: React.KeyboardEvent) => {
    const last = shown.length - 1;
    if (event.key === 'ArrowDown') setActive((at) => Math.min(at + 1, last));
    else if (event.key === 'ArrowUp') setActive((at) => Math.max(at - 1, 0));
    else if (event.key === 'Home' && !filter) setActive(0);
    else if (event.key === 'End' && !filter) setActive(last);
    else if (event.key === 'Enter') pick(shown[active]);
    else if (event.key === 'Escape') onClose(true);
    else if (!onKey?.(event.key, filter)) return;
    event.preventDefault();
    event.stopPropagation();
  };

  const activeId = shown.length ? `${listId}-${active}` : undefined;
  return (
    <div ref={box} className="crumb-dropdown">
      <div className="crumb-dropdown-head">
        {head}
        <input
          ref={input}
          className="crumb-filter"
          role="combobox"
          aria-label="Filter"
          aria-expanded="true"
          aria-controls={listId}
          aria-activedescendant={activeId}
          placeholder="Type to filter"
          value={filter}
          onChange={(e) => setFilter(e.target.value)}
          onKeyDown={onKeyDown}
        />
      </div>
      <ul ref={list} id={listId} role="listbox" aria-label={label} className="crumb-options">
        {error && <CrumbNote>{error}</CrumbNote>}
        {!error && items === null && <CrumbNote>Loading…</CrumbNote>}
        {items !== null && !shown.length && <CrumbNote>No matches</CrumbNote>}
        {shown.map((item, i) => (
          <li
            key={keyOf(item, i)}
            id={`${listId}-${i}`}
            data-index={i}
            role="option"
            aria-label={item.name}
            aria-selected={i === active}
            className={`crumb-option${i === active ? ' active' : ''}${isCurrent(item) ? ' current' : ''}`}
            onMouseDown={(e) => e.preventDefault()}
            onMouseEnter={() => setActive(i)}
            onClick={() => pick(item)}
          >
            {iconOf(item)}
            <span>{item.name}</span>
            {hasMore?.(item) && (
              <span className="crumb-option-more" aria-hidden>
                <ChevronIcon open={false} />
              </span>
            )}
          </li>
        ))}
        {matches.length > shown.length && (
          <CrumbNote>{(matches.length - shown.length).toLocaleString()} more — type to filter</CrumbNote>
        )}
      </ul>
    </div>
  );
}

function CrumbNote({ children }: { children: React.ReactNode }) {
  return (
    <li className="crumb-empty" role="presentation">
      {children}
    </li>
  );
}

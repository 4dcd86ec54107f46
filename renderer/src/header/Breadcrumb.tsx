import { useEffect, useMemo, useRef, useState } from 'react';
import type { DocumentSymbol, Entry } from '../../../shared/contract';
import { listingEntries } from '../../../shared/listing';
import { parentOf } from '../../../shared/paths';
import { errorText, useBridge } from '../base';
import { desktopApi } from '../drag-out';
import { requestReveal } from '../editor';
import { useSymbolPath } from '../language';
import { ChevronIcon, ContextMenu, FileIcon, FolderIcon, Icon, usePrefs, useToasts, type MenuItem } from '../ui';

const MAX_OPTIONS = 400;
const NO_ENTRIES: Entry[] = [];

interface Segment {
  label: string;
  /** The segment's own path ('' for the workspace root). */
  path: string;
  /** The folder whose entries the dropdown lists first: the segment's siblings (the root lists its own contents). */
  listDir: string;
}

function segmentsOf(path: string, rootName: string): Segment[] {
  const parts = path.split('/').filter(Boolean);
  const out: Segment[] = [{ label: rootName || 'Workspace', path: '', listDir: '' }];
  parts.forEach((part, i) => {
    out.push({ label: part, path: parts.slice(0, i + 1).join('/'), listDir: parts.slice(0, i).join('/') });
  });
  return out;
}

/** The open file's path; every segment opens a filterable list of its siblings (folders drill in, files open). */
export function Breadcrumb({
  path,
  rootName,
  onOpenFile,
}: {
  path: string | null;
  rootName: string;
  onOpenFile: (path: string) => void;
}) {
  const [open, setOpen] = useState<number | null>(null);
  const [menu, setMenu] = useState<{ x: number; y: number; items: MenuItem[] } | null>(null);
  const toasts = useToasts();
  const segments = useMemo(() => segmentsOf(path ?? '', rootName), [path, rootName]);
  const buttons = useRef<Array<HTMLButtonElement | null>>([]);
  // After the file, the symbols enclosing the cursor (a Python file, from the language server), as VS Code shows.
  const symbols = useSymbolPath(path);
  const [openSymbol, setOpenSymbol] = useState<number | null>(null);
  const symbolButtons = useRef<Array<HTMLButtonElement | null>>([]);

  useEffect(() => {
    setOpen(null);
    setOpenSymbol(null);
  }, [path]);

  const close = (refocus: boolean) => {
    const at = open;
    setOpen(null);
    if (refocus && at !== null) buttons.current[at]?.focus();
  };

  const revealSymbol = (symbol: DocumentSymbol) => {
    setOpenSymbol(null);
    if (!path) return;
    const { start, end } = symbol.selectionRange;
    requestReveal(path, {
      line: start.line + 1,
      start: start.character,
      end: end.line === start.line ? end.character : start.character,
    });
  };

  return (
    <nav className="breadcrumb" aria-label="Breadcrumb">
      <ol aria-label="Path">
        {segments.map((segment, i) => (
          <li key={segment.path || '(root)'} className="crumb">
            {i > 0 && (
              <span className="crumb-sep" aria-hidden>
                <ChevronIcon open={false} />
              </span>
            )}
            <button
              ref={(el) => {
                buttons.current[i] = el;
              }}
              type="button"
              className={`crumb-btn${open === i ? ' open' : ''}${i === segments.length - 1 ? ' last' : ''}`}
              aria-haspopup="listbox"
              aria-expanded={open === i}
              title={segment.path || rootName}
              onClick={() => setOpen(open === i ? null : i)}
              onContextMenu={(event) => {
                const items = desktopMenu(segment.path, i === segments.length - 1 && Boolean(path), toasts.error);
                if (!items) return; // the web host has no desktop to reveal in: the browser's own menu
                event.preventDefault();
                setMenu({ x: event.clientX, y: event.clientY, items });
              }}
              onKeyDown={(e) => {
                if (e.key === 'ArrowRight') buttons.current[Math.min(i + 1, segments.length - 1)]?.focus();
                else if (e.key === 'ArrowLeft') buttons.current[Math.max(i - 1, 0)]?.focus();
                else if (e.key === 'ArrowDown') setOpen(i);
                else return;
                e.preventDefault();
              }}
            >
              {i === 0 ? null : i === segments.length - 1 && path ? (
                <FileIcon name={segment.label} />
              ) : (
                <FolderIcon open={false} />
              )}
              <span>{segment.label}</span>
            </button>
            {open === i && (
              <SiblingList
                dir={segment.listDir}
                current={segment.path}
                onOpenFile={(file) => {
                  setOpen(null);
                  onOpenFile(file);
                }}
                onClose={close}
              />
            )}
          </li>
        ))}
      </ol>
      {menu && (
        <ContextMenu x={menu.x} y={menu.y} label="Path actions" items={menu.items} onClose={() => setMenu(null)} />
      )}
      {symbols.length > 0 && (
        <ol aria-label="Symbols" className="crumb-symbols">
          {symbols.map((step, i) => (
            <li key={`${i}:${step.symbol.name}`} className="crumb">
              <span className="crumb-sep" aria-hidden>
                <ChevronIcon open={false} />
              </span>
              <button
                ref={(el) => {
                  symbolButtons.current[i] = el;
                }}
                type="button"
                className={`crumb-btn crumb-symbol${openSymbol === i ? ' open' : ''}`}
                aria-haspopup="listbox"
                aria-expanded={openSymbol === i}
                title={step.symbol.detail || step.symbol.name}
                onClick={() => setOpenSymbol(openSymbol === i ? null : i)}
                onKeyDown={(e) => {
                  if (e.key === 'ArrowRight') symbolButtons.current[Math.min(i + 1, symbols.length - 1)]?.focus();
                  else if (e.key === 'ArrowLeft')
                    (i === 0 ? buttons.current[segments.length - 1] : symbolButtons.current[i - 1])?.focus();
                  else if (e.key === 'ArrowDown') setOpenSymbol(i);
                  else return;
                  e.preventDefault();
                }}
              >
                <SymbolIcon kind={step.symbol.kind} />
                <span>{step.symbol.name}</span>
              </button>
              {openSymbol === i && (
                <SymbolList
                  symbols={step.siblings}
                  current={step.symbol}
                  onPick={revealSymbol}
                  onClose={(refocus) => {
                    setOpenSymbol(null);
                    if (refocus) symbolButtons.current[i]?.focus();
                  }}
                />
              )}
            </li>
          ))}
        </ol>
      )}
    </nav>
  );
}

const SYMBOL_ICONS: Record<string, string> = {
  class: 'symbol-class',
  method: 'symbol-method',
  function: 'symbol-method',
  constructor: 'symbol-method',
  variable: 'symbol-variable',
  constant: 'symbol-constant',
  property: 'symbol-property',
  field: 'symbol-field',
  module: 'symbol-namespace',
};

function SymbolIcon({ kind }: { kind: string }) {
  return <Icon name={SYMBOL_ICONS[kind] ?? 'symbol-misc'} size={14} className={`symbol-icon symbol-icon-${kind}`} />;
}

/** A symbol segment's dropdown: its siblings, filtered as you type; picking one moves the cursor to it. */
function SymbolList({
  symbols,
  current,
  onPick,
  onClose,
}: {
  symbols: DocumentSymbol[];
  current: DocumentSymbol;
  onPick: (symbol: DocumentSymbol) => void;
  onClose: (refocus: boolean) => void;
}) {
  const {
    filter,
    setFilter,
    active,
    setActive,
    matches: shown,
  } = useFilteredOptions(symbols, symbols.indexOf(current));
  const box = useRef<HTMLDivElement>(null);
  const input = useRef<HTMLInputElement>(null);

  useDropdownFocus(box, input, onClose);

  const onKeyDown = (event: React.KeyboardEvent) => {
    if (event.key === 'Enter') {
      if (shown[active]) onPick(shown[active]);
    } else if (event.key === 'Escape') onClose(true);
    else if (!moveActive(event.key, setActive, shown.length)) return;
    event.preventDefault();
    event.stopPropagation();
  };

  const listId = 'breadcrumb-symbols-listbox';
  return (
    <div ref={box} className="crumb-dropdown">
      <div className="crumb-dropdown-head">
        <CrumbFilter
          inputRef={input}
          listId={listId}
          active={shown.length ? active : null}
          filter={filter}
          onFilter={setFilter}
          onKeyDown={onKeyDown}
        />
      </div>
      <ul id={listId} role="listbox" aria-label="Symbols" className="crumb-options">
        {!shown.length && (
          <li className="crumb-empty" role="presentation">
            No matches
          </li>
        )}
        {shown.map((symbol, i) => (
          <CrumbOption
            key={`${i}:${symbol.name}`}
            listId={listId}
            index={i}
            name={symbol.name}
            active={i === active}
            current={symbol === current}
            onActive={setActive}
            onPick={() => onPick(symbol)}
          >
            <SymbolIcon kind={symbol.kind} />
          </CrumbOption>
        ))}
      </ul>
    </div>
  );
}

function SiblingList({
  dir: startDir,
  current,
  onOpenFile,
  onClose,
}: {
  dir: string;
  current: string;
  onOpenFile: (path: string) => void;
  onClose: (refocus: boolean) => void;
}) {
  const bridge = useBridge();
  const { prefs } = usePrefs();
  const [dir, setDir] = useState(startDir);
  const [entries, setEntries] = useState<Entry[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const { filter, setFilter, active, setActive, matches } = useFilteredOptions(entries ?? NO_ENTRIES);
  const box = useRef<HTMLDivElement>(null);
  const input = useRef<HTMLInputElement>(null);
  const list = useRef<HTMLUListElement>(null);

  useEffect(() => {
    let live = true;
    setEntries(null);
    setError(null);
    bridge.request('workspace.list', { path: dir, showHidden: prefs?.showHidden ?? false }).then(
      (listing) => {
        if (!live) return;
        const result = listingEntries(listing);
        setEntries(result);
        const at = result.findIndex((e) => e.path === current);
        setActive(Math.max(0, at));
      },
      (err) => live && setError(errorText(err)),
    );
    return () => {
      live = false;
    };
  }, [bridge, dir, current, prefs?.showHidden, setActive]);

  useDropdownFocus(box, input, onClose);

  const shown = matches.slice(0, MAX_OPTIONS);

  useEffect(() => {
    list.current?.querySelector(`[data-index="${active}"]`)?.scrollIntoView({ block: 'nearest' });
  }, [active, shown.length]);

  const choose = (entry: Entry | undefined) => {
    if (!entry) return;
    if (entry.kind === 'dir') {
      setDir(entry.path);
      setFilter('');
      input.current?.focus();
    } else onOpenFile(entry.path);
  };

  const onKeyDown = (event: React.KeyboardEvent) => {
    if (event.key === 'Home' && !filter) setActive(0);
    else if (event.key === 'End' && !filter) setActive(shown.length - 1);
    else if (event.key === 'Enter') choose(shown[active]);
    else if (event.key === 'Escape') onClose(true);
    else if (event.key === 'Backspace' && !filter && dir !== '') setDir(parentOf(dir));
    else if (!moveActive(event.key, setActive, shown.length)) return;
    event.preventDefault();
    event.stopPropagation();
  };

  const listId = 'breadcrumb-listbox';
  return (
    <div ref={box} className="crumb-dropdown">
      <div className="crumb-dropdown-head">
        <span className="crumb-dropdown-dir" title={dir || '(root)'}>
          {dir ? `${dir}/` : '/'}
        </span>
        <CrumbFilter
          inputRef={input}
          listId={listId}
          active={shown.length ? active : null}
          filter={filter}
          onFilter={setFilter}
          onKeyDown={onKeyDown}
        />
      </div>
      <ul
        ref={list}
        id={listId}
        role="listbox"
        aria-label={dir ? `Entries of ${dir}` : 'Entries of the workspace'}
        className="crumb-options"
      >
        {error && (
          <li className="crumb-empty" role="presentation">
            {error}
          </li>
        )}
        {!error && entries === null && (
          <li className="crumb-empty" role="presentation">
            Loading…
          </li>
        )}
        {entries !== null && !shown.length && (
          <li className="crumb-empty" role="presentation">
            No matches
          </li>
        )}
        {shown.map((entry, i) => (
          <CrumbOption
            key={entry.path}
            listId={listId}
            index={i}
            name={entry.name}
            active={i === active}
            current={entry.path === current}
            onActive={setActive}
            onPick={() => choose(entry)}
            more={entry.kind === 'dir'}
          >
            {entry.kind === 'dir' ? <FolderIcon open={false} /> : <FileIcon name={entry.name} />}
          </CrumbOption>
        ))}
        {matches.length > shown.length && (
          <li className="crumb-empty" role="presentation">
            {(matches.length - shown.length).toLocaleString()} more — type to filter
          </li>
        )}
      </ul>
    </div>
  );
}

/** Electron's desktop actions for a segment (the file itself, or a folder on its path); null in the web host. */
function desktopMenu(segmentPath: string, isFile: boolean, fail: (message: string) => void): MenuItem[] | null {
  const desktop = desktopApi();
  if (!desktop) return null;
  const failed = (err: unknown) => fail(errorText(err));
  return [
    { label: 'Reveal in File Manager', onSelect: () => void desktop.reveal(segmentPath).catch(failed) },
    {
      label: 'Open with System Application',
      disabled: !isFile,
      onSelect: () =>
        void desktop.openWithSystem(segmentPath).then((result) => {
          if (!result.opened && result.message) fail(`Could not open ${segmentPath}: ${result.message}`);
        }, failed),
    },
  ];
}

/** A dropdown takes focus into its filter and closes on a click outside it (its own segment's button toggles it). */
function useDropdownFocus(
  box: React.RefObject<HTMLDivElement | null>,
  input: React.RefObject<HTMLInputElement | null>,
  onClose: (refocus: boolean) => void,
): void {
  useEffect(() => {
    input.current?.focus();
    const outside = (event: MouseEvent) => {
      if (!box.current?.contains(event.target as Node) && !(event.target as HTMLElement).closest?.('.crumb-btn.open'))
        onClose(false);
    };
    window.addEventListener('mousedown', outside, true);
    return () => window.removeEventListener('mousedown', outside, true);
  }, [box, input, onClose]);
}

/** The filter box of a segment's dropdown: a combobox over the dropdown's listbox. */
function CrumbFilter({
  inputRef,
  listId,
  active,
  filter,
  onFilter,
  onKeyDown,
}: {
  inputRef: React.RefObject<HTMLInputElement | null>;
  listId: string;
  active: number | null;
  filter: string;
  onFilter: (value: string) => void;
  onKeyDown: (event: React.KeyboardEvent) => void;
}) {
  return (
    <input
      ref={inputRef}
      className="crumb-filter"
      role="combobox"
      aria-label="Filter"
      aria-expanded="true"
      aria-controls={listId}
      aria-activedescendant={active === null ? undefined : `${listId}-${active}`}
      placeholder="Type to filter"
      value={filter}
      onChange={(e) => onFilter(e.target.value)}
      onKeyDown={onKeyDown}
    />
  );
}

/** A dropdown's filter text and active option: changing the filter makes the first match active. */
function useFilteredOptions<T extends { name: string }>(items: readonly T[], initialActive = 0) {
  const [filter, setFilterText] = useState('');
  const [active, setActive] = useState(Math.max(0, initialActive));
  const matches = useMemo(() => {
    const needle = filter.trim().toLowerCase();
    return needle ? items.filter((item) => item.name.toLowerCase().includes(needle)) : items;
  }, [items, filter]);
  const setFilter = (value: string) => {
    setFilterText(value);
    setActive(0);
  };
  return { filter, setFilter, active, setActive, matches };
}

/** Up and Down move the active option within `count`; true if the key was one of them. */
function moveActive(key: string, setActive: (update: (at: number) => number) => void, count: number): boolean {
  if (key === 'ArrowDown') setActive((at) => Math.min(at + 1, count - 1));
  else if (key === 'ArrowUp') setActive((at) => Math.max(at - 1, 0));
  else return false;
  return true;
}

/** One option of a dropdown's listbox; the mouse makes it active without taking focus from the filter. */
function CrumbOption({
  listId,
  index,
  name,
  active,
  current,
  onActive,
  onPick,
  more = false,
  children,
}: {
  listId: string;
  index: number;
  name: string;
  active: boolean;
  current: boolean;
  onActive: (index: number) => void;
  onPick: () => void;
  /** Picking it opens a further list (a folder). */
  more?: boolean;
  /** Its icon. */
  children: React.ReactNode;
}) {
  return (
    <li
      id={`${listId}-${index}`}
      data-index={index}
      role="option"
      aria-label={name}
      aria-selected={active}
      className={`crumb-option${active ? ' active' : ''}${current ? ' current' : ''}`}
      onMouseDown={(e) => e.preventDefault()}
      onMouseEnter={() => onActive(index)}
      onClick={onPick}
    >
      {children}
      <span>{name}</span>
      {more && (
        <span className="crumb-option-more" aria-hidden>
          <ChevronIcon open={false} />
        </span>
      )}
    </li>
  );
}

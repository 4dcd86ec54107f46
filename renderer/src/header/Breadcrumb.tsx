import { useEffect, useMemo, useRef, useState } from 'react';
import type { DocumentSymbol, Entry } from '../../../shared/contract';
import { listingEntries } from '../../../shared/listing';
import { parentOf } from '../../../shared/paths';
import { errorText, useBridge } from '../base';
import { desktopApi } from '../drag-out';
import { useReveals } from '../editor';
import { useSymbolPath } from '../language';
import { ChevronIcon, ContextMenu, FileIcon, FolderIcon, Icon, usePrefs, useToasts, type MenuItem } from '../ui';
import { CrumbDropdown } from './CrumbDropdown';

const MAX_OPTIONS = 400;

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
  const reveals = useReveals();
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
    reveals.request(path, {
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
  return (
    <CrumbDropdown
      items={symbols}
      listId="breadcrumb-symbols-listbox"
      label="Symbols"
      keyOf={(symbol, i) => `${i}:${symbol.name}`}
      iconOf={(symbol) => <SymbolIcon kind={symbol.kind} />}
      isCurrent={(symbol) => symbol === current}
      onPick={onPick}
      onClose={onClose}
    />
  );
}

/** A path segment's dropdown: the entries of its folder; a folder drills in (Backspace goes back up), a file opens. */
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

  useEffect(() => {
    let live = true;
    setEntries(null);
    setError(null);
    bridge.request('workspace.list', { path: dir, showHidden: prefs?.showHidden ?? false }).then(
      (listing) => live && setEntries(listingEntries(listing)),
      (err) => live && setError(errorText(err)),
    );
    return () => {
      live = false;
    };
  }, [bridge, dir, prefs?.showHidden]);

  return (
    <CrumbDropdown
      items={entries}
      error={error}
      listId="breadcrumb-listbox"
      label={dir ? `Entries of ${dir}` : 'Entries of the workspace'}
      head={
        <span className="crumb-dropdown-dir" title={dir || '(root)'}>
          {dir ? `${dir}/` : '/'}
        </span>
      }
      keyOf={(entry) => entry.path}
      iconOf={(entry) => (entry.kind === 'dir' ? <FolderIcon open={false} /> : <FileIcon name={entry.name} />)}
      isCurrent={(entry) => entry.path === current}
      hasMore={(entry) => entry.kind === 'dir'}
      maxOptions={MAX_OPTIONS}
      onPick={(entry, pick) => {
        if (entry.kind !== 'dir') return onOpenFile(entry.path);
        setDir(entry.path);
        pick.clearFilter();
      }}
      onKey={(key, filter) => {
        if (key !== 'Backspace' || filter || dir === '') return false;
        setDir(parentOf(dir));
        return true;
      }}
      onClose={onClose}
    />
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

import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef, useState } from 'react';
import type { SearchFileResult, SearchMatch } from '../../../shared/contract';
import { nameOf, parentOf } from '../../../shared/paths';
import { ChevronIcon, FileIcon, Icon, XIcon } from '../ui';
import { useStore } from '../base';
import { useSearchStore, type SearchStore } from './search-store';
import { ReplaceField, ReplaceToggle, RowActions, useReplacementPreview } from './ReplaceParts';
import { useReplaceInFiles } from './use-replace-in-files';
import './search.css';

const ROW_HEIGHT = 22;
/** Typing pauses this long before the search starts (Enter starts it at once). */
const TYPING_PAUSE_MS = 250;

type Row =
  | { kind: 'file'; file: SearchFileResult; expanded: boolean }
  | { kind: 'match'; file: SearchFileResult; match: SearchMatch; index: number };

/** The left rail's search view: the query, its toggles and globs, and the results as a tree grouped by file. */
export function SearchView({
  focusTick,
  onOpenMatch,
}: {
  /** Bumped by Find in Files: focus the search box and select its text. */
  focusTick: number;
  onOpenMatch: (path: string, match: SearchMatch) => void;
}) {
  const store = useSearchStore();
  const state = useStore(store);
  const { query } = state;
  const [pattern, setPattern] = useState(query.pattern);
  const [collapsed, setCollapsed] = useState<Set<string>>(new Set());
  const [focused, setFocused] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  const scrollRef = useRef<HTMLDivElement>(null);
  const typing = useRef<ReturnType<typeof setTimeout> | null>(null);
  const replace = useReplaceInFiles();
  const replacing = replace.state.shown;
  const replacementOf = useReplacementPreview(query, replace.state.replacement);

  useEffect(() => {
    input.current?.focus();
    input.current?.select();
  }, [focusTick]);
  useEffect(() => () => void (typing.current && clearTimeout(typing.current)), []);

  const searchNow = (change: Parameters<SearchStore['search']>[0]) => {
    if (typing.current) clearTimeout(typing.current);
    typing.current = null;
    setCollapsed(new Set());
    setFocused(0);
    void store.search(change);
  };

  const rows = useMemo<Row[]>(() => {
    const out: Row[] = [];
    for (const file of state.files) {
      const expanded = !collapsed.has(file.path);
      out.push({ kind: 'file', file, expanded });
      if (expanded) file.matches.forEach((match, index) => out.push({ kind: 'match', file, match, index }));
    }
    return out;
  }, [state.files, collapsed]);

  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
  });

  const toggle = (path: string) =>
    setCollapsed((set) => {
      const next = new Set(set);
      if (next.has(path)) next.delete(path);
      else next.add(path);
      return next;
    });

  const activate = (row: Row | undefined) => {
    if (!row) return;
    if (row.kind === 'file') toggle(row.file.path);
    else onOpenMatch(row.file.path, row.match);
  };

  const moveTo = (index: number) => {
    const clamped = Math.max(0, Math.min(index, rows.length - 1));
    setFocused(clamped);
    virtualizer.scrollToIndex(clamped, { align: 'auto' });
  };

  const onTreeKey = (event: React.KeyboardEvent) => {
    const row = rows[focused];
    if (event.key === 'ArrowDown') moveTo(focused + 1);
    else if (event.key === 'ArrowUp') moveTo(focused - 1);
    else if (event.key === 'Home') moveTo(0);
    else if (event.key === 'End') moveTo(rows.length - 1);
    else if (event.key === 'Enter') activate(row);
    else if (event.key === 'ArrowRight' && row?.kind === 'file' && !row.expanded) toggle(row.file.path);
    else if (event.key === 'ArrowLeft' && row) {
      if (row.kind === 'file' && row.expanded) toggle(row.file.path);
      else if (row.kind === 'match') moveTo(rows.findIndex((r) => r.kind === 'file' && r.file === row.file));
    } else return;
    event.preventDefault();
    event.stopPropagation();
  };

  const toggles = [
    // VS Code's icons for them: a glyph, not text, so the name is all a screen reader or a speech user meets.
    { name: 'Match Case', key: 'matchCase', icon: 'case-sensitive' },
    { name: 'Whole Word', key: 'wholeWord', icon: 'whole-word' },
    { name: 'Use Regular Expression', key: 'isRegex', icon: 'regex' },
  ] as const;

  const searching = state.status === 'searching';
  const summary = searching
    ? `Searching… ${resultsIn(state.matchCount, state.files.length)}`
    : state.status === 'error'
      ? state.error
      : state.status === 'idle'
        ? ''
        : state.matchCount === 0
          ? state.status === 'cancelled'
            ? 'Search cancelled. No results.'
            : 'No results found.'
          : `${resultsIn(state.matchCount, state.files.length)}${state.limitHit ? ' (stopped at the result limit: narrow the search)' : ''}${state.status === 'cancelled' ? ' (cancelled)' : ''}`;

  return (
    <section className="search-view" role="region" aria-label="Search">
      <div className="rail-header">
        <span className="rail-title">Search</span>
        {searching && (
          <button
            type="button"
            className="icon-btn"
            aria-label="Cancel search"
            title="Cancel search"
            onClick={() => void store.cancel()}
          >
            <XIcon />
          </button>
        )}
      </div>
      <div className="search-form">
        <div className="search-form-row">
          <ReplaceToggle shown={replacing} onToggle={() => replace.store.show(!replacing)} />
          <div className="search-fields">
            <div className="search-box">
              <input
                ref={input}
                className="search-input"
                aria-label="Search"
                placeholder="Search"
                spellCheck={false}
                value={pattern}
                onChange={(e) => {
                  const value = e.target.value;
                  setPattern(value);
                  if (typing.current) clearTimeout(typing.current);
                  typing.current = setTimeout(() => searchNow({ pattern: value }), TYPING_PAUSE_MS);
                }}
                onKeyDown={(e) => {
                  if (e.key === 'Enter') searchNow({ pattern });
                  else if (e.key === 'Escape' && searching) void store.cancel();
                  else if (e.key === 'ArrowDown' && rows.length) scrollRef.current?.focus();
                  else return;
                  e.preventDefault();
                }}
              />
              {toggles.map((t) => (
                <button
                  key={t.key}
                  type="button"
                  className="search-toggle"
                  aria-label={t.name}
                  title={t.name}
                  aria-pressed={query[t.key]}
                  onClick={() => searchNow({ pattern, [t.key]: !query[t.key] })}
                >
                  <Icon name={t.icon} />
                </button>
              ))}
            </div>
            {replacing && (
              <ReplaceField
                value={replace.state.replacement}
                focusTick={replace.state.focusTick}
                disabled={!state.files.length || replace.state.busy || searching}
                onChange={(value) => replace.store.setReplacement(value)}
                onReplaceAll={() => void replace.replaceAll(state.files)}
              />
            )}
          </div>
        </div>
        <GlobInput
          label="Files to include"
          placeholder="e.g. src/**, *.py"
          value={query.include}
          onCommit={(include) => searchNow({ pattern, include })}
        />
        <GlobInput
          label="Files to exclude"
          placeholder="e.g. *.csv, build/"
          value={query.exclude}
          onCommit={(exclude) => searchNow({ pattern, exclude })}
        />
      </div>
      <div className={`search-summary${state.status === 'error' ? ' error' : ''}`} role="status">
        {summary}
      </div>
      <div
        ref={scrollRef}
        className="tree search-results"
        role="tree"
        aria-label="Search results"
        tabIndex={0}
        aria-activedescendant={rows.length ? `search-row-${focused}` : undefined}
        onKeyDown={onTreeKey}
      >
        <div className="tree-inner" style={{ height: virtualizer.getTotalSize() }}>
          {virtualizer.getVirtualItems().map((item) => {
            const row = rows[item.index];
            const style = { transform: `translateY(${item.start}px)`, height: ROW_HEIGHT };
            const common = {
              id: `search-row-${item.index}`,
              role: 'treeitem',
              'aria-selected': item.index === focused,
              className: `tree-row search-row${item.index === focused ? ' focused selected' : ''}`,
              style,
              onClick: () => {
                setFocused(item.index);
                activate(row);
              },
            } as const;
            if (row.kind === 'file') {
              const name = nameOf(row.file.path);
              const dir = parentOf(row.file.path);
              return (
                <div
                  key={`f:${row.file.path}`}
                  {...common}
                  aria-level={1}
                  aria-expanded={row.expanded}
                  // Named as it reads (file name, then folder): WCAG 2.5.3, a speech user says what they see.
                  aria-label={dir ? `${name} ${dir}` : name}
                  data-path={row.file.path}
                >
                  <span className="twisty" aria-hidden>
                    <ChevronIcon open={row.expanded} />
                  </span>
                  <FileIcon name={name} />
                  <span className="tree-name">{name}</span>
                  {/* A space between name and folder, so the row's text reads as its name does. */}
                  {dir && ' '}
                  {dir && <span className="search-dir">{dir}</span>}
                  {/* CSS content, as the tree's git letter: decoration, not part of the row's name. */}
                  <span className="search-count" aria-hidden data-count={row.file.matches.length} />
                  <RowActions
                    what="file"
                    canReplace={replacing && !replace.state.busy}
                    onReplace={() => void replace.replaceIn(row.file)}
                    onDismiss={() => store.dismiss(row.file.path)}
                  />
                </div>
              );
            }
            const { match } = row;
            const from = match.start - match.previewStart;
            const to = Math.min(match.end - match.previewStart, match.preview.length);
            const before = match.preview.slice(0, from).trimStart();
            // A notebook's hit is placed in its cell: "cell 4, line 2".
            const place = match.cell ? `cell ${match.cell.index + 1}, line ${match.line}` : `line ${match.line}`;
            return (
              <div
                key={`m:${row.file.path}:${row.index}`}
                {...common}
                aria-level={2}
                aria-label={`${match.preview.trim()} (${place})`}
                data-path={row.file.path}
                data-line={match.line}
                data-cell={match.cell?.index}
                title={place[0].toUpperCase() + place.slice(1)}
              >
                {match.cell && (
                  <span className="search-cell" aria-hidden>
                    [{match.cell.index + 1}]
                  </span>
                )}
                <span className="search-line">
                  {match.previewStart > 0 && '…'}
                  {before.length > 24 ? `…${before.slice(-24)}` : before}
                  {replacing ? (
                    <>
                      <del>{match.preview.slice(from, to)}</del>
                      <ins>{replacementOf(match)}</ins>
                    </>
                  ) : (
                    <mark>{match.preview.slice(from, to)}</mark>
                  )}
                  {match.preview.slice(to)}
                </span>
                <RowActions
                  what="match"
                  canReplace={replacing && !replace.state.busy}
                  onReplace={() => void replace.replaceIn({ ...row.file, matches: [match] }, row.index)}
                  onDismiss={() => store.dismiss(row.file.path, [row.index])}
                />
              </div>
            );
          })}
        </div>
      </div>
    </section>
  );
}

/** A globs box: the search reruns when the operator presses Enter or leaves it changed. */
function GlobInput({
  label,
  placeholder,
  value,
  onCommit,
}: {
  label: string;
  placeholder: string;
  value: string;
  onCommit: (value: string) => void;
}) {
  const [text, setText] = useState(value);
  return (
    <input
      className="search-input search-glob"
      aria-label={label}
      placeholder={placeholder}
      spellCheck={false}
      value={text}
      onChange={(e) => setText(e.target.value)}
      onKeyDown={(e) => e.key === 'Enter' && onCommit(text)}
      onBlur={() => text !== value && onCommit(text)}
    />
  );
}

/** "1 result in 1 file", "4 results in 3 files". */
function resultsIn(matches: number, files: number): string {
  const count = (n: number, noun: string) => `${n.toLocaleString()} ${noun}${n === 1 ? '' : 's'}`;
  return `${count(matches, 'result')} in ${count(files, 'file')}`;
}

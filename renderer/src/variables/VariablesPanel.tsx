import { Fragment, useEffect, useRef, type KeyboardEvent, type ReactNode } from 'react';
import { dataViewerTab, type Variable, type VariableRef } from '../../../shared/contract';
import { useStore } from '../base';
import { useCommands } from '../commands';
import { useOpenFilesStore } from '../editor';
import { ChevronIcon, Icon, SpinnerIcon, XIcon } from '../ui';
import {
  formatSize,
  refKey,
  useVariablesStore,
  visibleVariables,
  type Expansion,
  type SortColumn,
  type VariablesStore,
} from './variables-store';
import './variables.css';

const COLUMNS: { id: SortColumn; label: string }[] = [
  { id: 'name', label: 'Name' },
  { id: 'type', label: 'Type' },
  { id: 'shape', label: 'Shape' },
  { id: 'value', label: 'Value' },
  { id: 'size', label: 'Size' },
];

/** The top-level variables the data viewer shows: by type, and arrays by their dimensions (1-D or 2-D). */
function viewsAsData(v: Variable): boolean {
  if (v.type === 'ndarray') return !!v.shape && v.shape.split(' × ').length <= 2;
  if (v.type === 'list') return v.shape !== 'len 0';
  return ['DataFrame', 'Series', 'polars.dataframe.frame.DataFrame'].includes(v.type);
}

/** What a row reads as: name, type, shape and value ("x int 42"); the size is its own cell. */
function rowName(v: Variable): string {
  return [v.name, v.type, v.shape ?? '', v.summary].filter(Boolean).join(' ');
}

/**
 * The Variables region under the editor: the active notebook's kernel variables in a treegrid (name, type,
 * shape, value, size), sorted by a column header, filtered by name, rows expanded lazily ("more…").
 */
export function VariablesPanel() {
  const store = useVariablesStore();
  const openFiles = useOpenFilesStore();
  const active = useStore(openFiles, (s) => s.active);
  const state = useStore(store);
  const grid = useRef<HTMLDivElement>(null);
  useEffect(() => store.follow(active?.toLowerCase().endsWith('.ipynb') ? active : null), [store, active]);
  useCommands([{ id: 'variables.toggle', title: 'Toggle Variables', category: 'View', run: () => store.toggle() }]);
  if (!state.open) return null;

  const rows = state.variables ? visibleVariables(state.variables, state.filter, state.sort) : [];
  const onGridKey = (event: KeyboardEvent) => {
    const focused = document.activeElement as HTMLElement | null;
    const all = [...(grid.current?.querySelectorAll<HTMLElement>('[role="row"][data-ref]') ?? [])];
    const index = focused ? all.indexOf(focused) : -1;
    const move = (to: number) => all[Math.max(0, Math.min(all.length - 1, to))]?.focus();
    if (event.key === 'ArrowDown') move(index + 1);
    else if (event.key === 'ArrowUp') move(index - 1);
    else if (event.key === 'Home') move(0);
    else if (event.key === 'End') move(all.length - 1);
    else if (
      (event.key === 'ArrowRight' || event.key === 'ArrowLeft' || event.key === 'Enter') &&
      focused?.dataset.ref
    ) {
      const ref = JSON.parse(focused.dataset.ref) as VariableRef;
      const open = state.expanded.has(focused.dataset.ref);
      if (focused.dataset.expandable !== 'true') return;
      if (event.key === 'Enter' || (event.key === 'ArrowRight') !== open) store.toggleRow(ref);
    } else return;
    event.preventDefault();
  };

  return (
    <section className="variables-panel" role="region" aria-label="Variables">
      <div className="variables-bar">
        <span className="variables-title">Variables</span>
        <input
          className="variables-filter"
          type="search"
          placeholder="Filter by name"
          aria-label="Filter variables by name"
          value={state.filter}
          onChange={(e) => store.setFilter(e.target.value)}
        />
        <label className="variables-all" title="Also list modules, functions, classes and IPython's own names">
          <input type="checkbox" checked={state.all} onChange={(e) => store.setShowAll(e.target.checked)} />
          Show all
        </label>
        {state.loading && <SpinnerIcon />}
        <button
          type="button"
          className="icon-btn"
          aria-label="Refresh Variables"
          title="Refresh (asks the kernel when no cell is running)"
          onClick={() => void store.refresh()}
        >
          <Icon name="refresh" size={14} />
        </button>
        <button
          type="button"
          className="icon-btn"
          aria-label="Hide Variables"
          title="Hide"
          onClick={() => store.hide()}
        >
          <XIcon />
        </button>
      </div>
      {state.paused && (
        <div className="variables-note" role="status">
          Paused in the debugger: the selected frame’s locals and globals are in the Debugger panel’s Variables; this
          list is the kernel’s as of the last run.
        </div>
      )}
      {!state.path ? (
        <div className="variables-note">Open a notebook to see its kernel’s variables.</div>
      ) : (
        state.message && (
          <div className={`variables-note variables-${state.miss ?? 'note'}`} role="status">
            {state.message}
          </div>
        )
      )}
      {state.variables && (
        <div
          className="variables-grid"
          role="treegrid"
          aria-label={`Variables of ${state.path}`}
          aria-rowcount={rows.length + 1}
          ref={grid}
          onKeyDown={onGridKey}
        >
          <div role="row" className="variables-row variables-head">
            {COLUMNS.map((column) => {
              const sorted = state.sort.column === column.id;
              return (
                <div
                  key={column.id}
                  role="columnheader"
                  className={`variables-cell variables-col-${column.id}`}
                  aria-sort={sorted ? (state.sort.descending ? 'descending' : 'ascending') : 'none'}
                >
                  <button type="button" className="variables-sort" onClick={() => store.sortBy(column.id)}>
                    {column.label}
                    {sorted && <Icon name={state.sort.descending ? 'arrow-down' : 'arrow-up'} size={12} />}
                  </button>
                </div>
              );
            })}
          </div>
          {rows.length === 0 && (
            <NoteRow level={1}>
              {state.variables.length === 0 ? 'The kernel holds no variables yet.' : 'No variable matches the filter.'}
            </NoteRow>
          )}
          {rows.map((v, index) => (
            <VariableRows
              key={v.name}
              variable={v}
              level={1}
              store={store}
              expanded={state.expanded}
              first={index === 0}
              selected={state.selected?.name ?? null}
              onViewData={viewsAsData(v) ? () => void openFiles.open(dataViewerTab(state.path!, v.name)) : undefined}
            />
          ))}
          {state.total > state.variables.length && (
            <NoteRow level={1}>{state.total - state.variables.length} more not listed (the first 5000 are).</NoteRow>
          )}
        </div>
      )}
      {state.selected && (
        <section className="variables-value" role="region" aria-label={`Value of ${state.selected.name}`}>
          <div className="variables-value-title">
            {state.selected.name}
            {state.selected.loading && <SpinnerIcon />}
          </div>
          {state.selected.message ? (
            <div className="variables-note" role="status">
              {state.selected.message}
            </div>
          ) : (
            <pre className="variables-value-text">{state.selected.text ?? ''}</pre>
          )}
        </section>
      )}
    </section>
  );
}

function VariableRows({
  variable,
  level,
  store,
  expanded,
  first = false,
  onViewData,
  selected,
}: {
  variable: Variable;
  level: number;
  store: VariablesStore;
  expanded: ReadonlyMap<string, Expansion>;
  first?: boolean;
  /** Opens the variable in the data viewer (frames, series, 1-D/2-D arrays, lists of dicts). */
  onViewData?: () => void;
  /** The name of the selected top-level row. */
  selected?: string | null;
}) {
  const key = refKey(variable.ref);
  const expansion = expanded.get(key);
  return (
    <>
      <div
        role="row"
        className="variables-row"
        aria-level={level}
        aria-expanded={variable.expandable ? expansion !== undefined : undefined}
        aria-label={rowName(variable)}
        data-ref={key}
        data-expandable={variable.expandable}
        tabIndex={first ? 0 : -1}
        title={variable.summary}
        aria-selected={level === 1 ? selected === variable.name : undefined}
        onClick={() => level === 1 && store.select(variable)}
        onFocus={() => level === 1 && store.select(variable)}
        onDoubleClick={() => variable.expandable && store.toggleRow(variable.ref)}
      >
        <div
          role="gridcell"
          className="variables-cell variables-col-name"
          style={{ paddingLeft: 4 + (level - 1) * 14 }}
        >
          {variable.expandable ? (
            <button
              type="button"
              className="variables-twisty"
              tabIndex={-1}
              aria-hidden
              onClick={() => store.toggleRow(variable.ref)}
            >
              <ChevronIcon open={expansion !== undefined} size={14} />
            </button>
          ) : (
            <span className="variables-twisty" />
          )}
          <span className="variables-name">{variable.name}</span>
          {onViewData && (
            <button
              type="button"
              className="icon-btn variables-view-data"
              aria-label={`View ${variable.name} as data`}
              title="View Data: open in the data viewer"
              onClick={onViewData}
            >
              <Icon name="table" size={14} />
            </button>
          )}
        </div>
        <div role="gridcell" className="variables-cell variables-col-type">
          {variable.type}
        </div>
        <div role="gridcell" className="variables-cell variables-col-shape">
          {variable.shape ?? ''}
        </div>
        <div role="gridcell" className="variables-cell variables-col-value">
          {variable.summary}
        </div>
        <div role="gridcell" className="variables-cell variables-col-size">
          {formatSize(variable.size)}
        </div>
      </div>
      {expansion && (
        <Fragment>
          {expansion.children.map((child) => (
            <VariableRows
              key={refKey(child.ref)}
              variable={child}
              level={level + 1}
              store={store}
              expanded={expanded}
            />
          ))}
          {expansion.message && <NoteRow level={level + 1}>{expansion.message}</NoteRow>}
          {expansion.loading && <NoteRow level={level + 1}>Loading…</NoteRow>}
          {!expansion.loading && expansion.total > expansion.children.length && (
            <NoteRow level={level + 1}>
              <button type="button" className="variables-more" onClick={() => store.more(variable.ref)}>
                {expansion.total - expansion.children.length} more…
              </button>
            </NoteRow>
          )}
        </Fragment>
      )}
    </>
  );
}

/** A line inside the grid that is not a variable (a note, "more…"): still a row, so the treegrid holds only rows. */
function NoteRow({ level, children }: { level: number; children: ReactNode }) {
  return (
    <div role="row" aria-level={level} className="variables-row variables-note-row">
      <div role="gridcell" className="variables-note" style={{ paddingLeft: 8 + level * 14 }}>
        {children}
      </div>
    </div>
  );
}

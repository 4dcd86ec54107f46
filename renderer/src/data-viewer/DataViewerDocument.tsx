import { useEffect, useMemo, useRef, useState, type KeyboardEvent, type MouseEvent } from 'react';
import { parseDataViewerTab, type DataColumn, type DataColumnSummary } from '../../../shared/contract';
import { joinPath, parentOf } from '../../../shared/paths';
import { useBridge, useStore } from '../base';
import type { DocumentViewProps } from '../editor';
import { useOpenFilesStore } from '../editor';
import { copyText, Icon, SpinnerIcon } from '../ui';
import { DataViewStore, toTsv } from './data-store';
import './data-viewer.css';

const ROW = 22;
const HEAD = 74;
const INDEX_WIDTH = 96;
const COLUMN_WIDTH = 140;
/** Browsers stop drawing past ~16M px of height: a taller view maps its scroll range onto its rows. */
const MAX_HEIGHT = 8_000_000;

interface Point {
  row: number;
  col: number;
}

/**
 * A kernel variable as a grid (a tab named after it): a header row with each column's type, a filter and a
 * summary, the index, and the rows of the view drawn only where the grid is scrolled, fetched a page at a time.
 */
export function DataViewerDocument({ path }: DocumentViewProps) {
  const bridge = useBridge();
  const files = useOpenFilesStore();
  const tab = parseDataViewerTab(path);
  const store = useMemo(() => (tab ? new DataViewStore(bridge, tab.notebook, tab.name) : null), [bridge, path]); // eslint-disable-line react-hooks/exhaustive-deps
  useEffect(() => () => store?.dispose(), [store]);
  // Nothing to save: the tab is a view of the kernel.
  useEffect(() => files.claim(path, { save: async () => undefined, closed: () => undefined }), [files, path]);
  if (!store || !tab) return <div className="notice notice-error">Not a data viewer tab: {path}</div>;
  return <DataGrid store={store} name={tab.name} notebook={tab.notebook} />;
}

function DataGrid({ store, name, notebook }: { store: DataViewStore; name: string; notebook: string }) {
  const state = useStore(store);
  const scroller = useRef<HTMLDivElement>(null);
  const [viewport, setViewport] = useState({ top: 0, height: 600 });
  const [selection, setSelection] = useState<{ anchor: Point; focus: Point } | null>(null);
  const [exportTo, setExportTo] = useState<string | null>(null);

  useEffect(() => store.reload(true), [store]);
  useEffect(() => {
    const element = scroller.current;
    if (!element) return;
    const observer = new ResizeObserver(() => setViewport((v) => ({ ...v, height: element.clientHeight })));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);

  const visible = Math.max(1, Math.ceil((viewport.height - HEAD) / ROW));
  const height = Math.min(state.rows * ROW + HEAD, MAX_HEIGHT);
  const range = Math.max(1, height - viewport.height);
  const first = Math.min(
    Math.max(0, state.rows - visible),
    Math.round((viewport.top / range) * Math.max(0, state.rows - visible)),
  );
  const last = Math.min(state.rows, first + visible + 1);
  useEffect(() => store.show(first, last), [store, first, last, state.pages]);

  const inSelection = (row: number, col: number) => {
    if (!selection) return false;
    const { anchor: a, focus: f } = selection;
    return (
      row >= Math.min(a.row, f.row) &&
      row <= Math.max(a.row, f.row) &&
      col >= Math.min(a.col, f.col) &&
      col <= Math.max(a.col, f.col)
    );
  };

  const copySelection = async () => {
    if (!selection) return;
    const { anchor: a, focus: f } = selection;
    const [r0, r1, c0, c1] = [
      Math.min(a.row, f.row),
      Math.max(a.row, f.row),
      Math.min(a.col, f.col),
      Math.max(a.col, f.col),
    ];
    // Column -1 is the index.
    const cols = Array.from({ length: c1 - c0 + 1 }, (_, i) => c0 + i);
    const header = cols.map((c) => (c < 0 ? (state.indexName ?? '') : state.columns[c].name));
    const rows = await store.rowsOf(r0, Math.min(r1 + 1, r0 + 100_000));
    await copyText(
      toTsv(
        header,
        rows.map((r) => cols.map((c) => (c < 0 ? r.index : r.cells[c]))),
      ),
    );
  };

  const onKeyDown = (event: KeyboardEvent) => {
    if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === 'c' && selection) {
      event.preventDefault();
      void copySelection();
    }
  };

  const onCellDown = (event: MouseEvent, point: Point) => {
    if (event.button !== 0) return;
    setSelection((current) =>
      event.shiftKey && current ? { ...current, focus: point } : { anchor: point, focus: point },
    );
  };

  const rows = [];
  for (let row = first; row < last; row++) {
    const at = Math.floor(row / 200) * 200;
    const page = state.pages.get(at);
    const i = row - at;
    rows.push(
      <div role="row" className="dv-row" key={row} aria-rowindex={row + 3} style={{ height: ROW }}>
        <div
          role="rowheader"
          className={`dv-cell dv-index${inSelection(row, -1) ? ' dv-selected' : ''}`}
          style={{ width: INDEX_WIDTH }}
          onMouseDown={(e) => onCellDown(e, { row, col: -1 })}
        >
          {page ? text(page.index[i]) : ''}
        </div>
        {state.columns.map((column, col) => {
          const value = page?.data[col]?.[i];
          return (
            <div
              role="gridcell"
              key={col}
              className={`dv-cell dv-${column.kind}${value === null ? ' dv-missing' : ''}${inSelection(row, col) ? ' dv-selected' : ''}`}
              style={{ width: COLUMN_WIDTH }}
              aria-selected={inSelection(row, col)}
              onMouseDown={(e) => onCellDown(e, { row, col })}
            >
              {page ? (value === null ? 'NaN' : text(value)) : '…'}
            </div>
          );
        })}
      </div>,
    );
  }

  const filtered = state.rows !== state.total;
  return (
    <div className="data-viewer">
      <div className="dv-bar">
        <span className="dv-title">
          {name} <span className="dv-dim">{state.kind ?? ''}</span>
        </span>
        <span className="dv-dim" role="status" aria-label="Rows">
          {state.kind
            ? `${state.rows.toLocaleString()}${filtered ? ` of ${state.total.toLocaleString()}` : ''} rows × ${state.columns.length} columns`
            : ''}
        </span>
        {state.loading && <SpinnerIcon />}
        <span className="dv-spacer" />
        <button type="button" className="btn" disabled={!selection} onClick={() => void copySelection()}>
          Copy as TSV
        </button>
        <button
          type="button"
          className="btn"
          disabled={!state.kind}
          onClick={() => setExportTo(joinPath(parentOf(notebook), `${name}.csv`))}
        >
          Export CSV…
        </button>
        <button
          type="button"
          className="icon-btn"
          aria-label="Refresh"
          title="Ask the kernel again"
          onClick={() => store.reload(true)}
        >
          <Icon name="refresh" size={14} />
        </button>
      </div>
      {exportTo !== null && (
        <form
          className="dv-export"
          onSubmit={(e) => {
            e.preventDefault();
            void store.exportCsv(exportTo);
            setExportTo(null);
          }}
        >
          <label>
            Export {filtered ? 'the filtered view' : 'all rows'} as CSV to{' '}
            <input aria-label="Export to" value={exportTo} autoFocus onChange={(e) => setExportTo(e.target.value)} />
          </label>
          <button type="submit" className="btn">
            Export
          </button>
          <button type="button" className="btn" onClick={() => setExportTo(null)}>
            Cancel
          </button>
        </form>
      )}
      {state.exported && (
        <div className="dv-note" role="status" aria-label="Export">
          {state.exported}
        </div>
      )}
      {state.message && (
        <div className={`dv-note${state.gone ? ' dv-gone' : ''}`} role="alert">
          {state.message}
        </div>
      )}
      <div
        className="dv-scroll"
        ref={scroller}
        onScroll={(e) => setViewport({ top: e.currentTarget.scrollTop, height: e.currentTarget.clientHeight })}
      >
        <div style={{ height: Math.max(height, viewport.height), position: 'relative' }}>
          <div
            className="dv-window"
            role="grid"
            aria-label={name}
            aria-rowcount={state.rows + 2}
            aria-colcount={state.columns.length + 1}
            aria-multiselectable
            tabIndex={0}
            onKeyDown={onKeyDown}
            style={{ width: INDEX_WIDTH + state.columns.length * COLUMN_WIDTH }}
          >
            <div role="row" className="dv-row dv-head" aria-rowindex={1}>
              <div role="columnheader" className="dv-cell dv-index" style={{ width: INDEX_WIDTH }}>
                {state.indexName ?? ''}
              </div>
              {state.columns.map((column, col) => (
                <ColumnHeader
                  key={`${col}:${column.name}`}
                  column={column}
                  sorted={state.sort?.column === col ? (state.sort.descending ? 'descending' : 'ascending') : 'none'}
                  filter={state.filters.get(col) ?? ''}
                  onSort={() => store.sortBy(col)}
                  onFilter={(value) => store.setFilter(col, value)}
                />
              ))}
            </div>
            <div role="row" className="dv-row dv-summary" aria-rowindex={2}>
              <div role="rowheader" className="dv-cell dv-index" style={{ width: INDEX_WIDTH }}>
                summary
              </div>
              {state.columns.map((column, col) => (
                <div
                  role="gridcell"
                  key={col}
                  className="dv-cell"
                  style={{ width: COLUMN_WIDTH }}
                  title={summaryText(state.summaries?.[col])}
                >
                  {summaryText(state.summaries?.[col])}
                </div>
              ))}
            </div>
            {rows}
          </div>
        </div>
      </div>
    </div>
  );
}

function ColumnHeader(props: {
  column: DataColumn;
  sorted: 'ascending' | 'descending' | 'none';
  filter: string;
  onSort: () => void;
  onFilter: (value: string) => void;
}) {
  const { column, sorted } = props;
  const [typed, setTyped] = useState(props.filter);
  useEffect(() => setTyped(props.filter), [props.filter]);
  const apply = () => typed !== props.filter && props.onFilter(typed);
  return (
    <div role="columnheader" aria-sort={sorted} className="dv-cell dv-column" style={{ width: COLUMN_WIDTH }}>
      <button type="button" className="dv-sort" title={`Sort by ${column.name}`} onClick={props.onSort}>
        <span className="dv-name">{column.name}</span>
        {sorted !== 'none' && <Icon name={sorted === 'descending' ? 'arrow-down' : 'arrow-up'} size={12} />}
      </button>
      <span className="dv-dtype">{column.dtype}</span>
      <input
        className="dv-filter"
        aria-label={`Filter ${column.name}`}
        placeholder={column.kind === 'number' ? '> 0, = 5, empty' : 'contains'}
        value={typed}
        onChange={(e) => setTyped(e.target.value)}
        onBlur={apply}
        onKeyDown={(e) => {
          if (e.key === 'Enter') apply();
        }}
      />
    </div>
  );
}

function text(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'number' && !Number.isInteger(value) ? String(Number(value.toPrecision(10))) : String(value);
}

function summaryText(summary: DataColumnSummary | undefined): string {
  if (!summary) return '';
  const parts = [`${summary.count.toLocaleString()} values`];
  if (summary.missing) parts.push(`${summary.missing.toLocaleString()} missing`);
  if (summary.min !== null) parts.push(`${text(summary.min)} – ${text(summary.max)}`);
  if (summary.top?.length)
    parts.push(`${summary.sampled ? 'top (sample)' : 'top'}: ${summary.top.map(([v, n]) => `${v} (${n})`).join(', ')}`);
  return parts.join(' · ');
}

import type { DataColumn, DataColumnSummary, DataFilter, DataSort, KilnBridge } from '../../../shared/contract';
import { errorText, Store } from '../base';

/** Rows fetched per request: a page of the view, all columns. */
export const PAGE_ROWS = 200;

type Cell = string | number | boolean | null;

export interface DataPage {
  index: (string | number | null)[];
  /** Column-major, as the kernel sent it. */
  data: Cell[][];
}

export interface DataViewState {
  kind: string | null;
  total: number;
  /** Rows of the view (after filters). */
  rows: number;
  columns: DataColumn[];
  indexName: string | null;
  sort: DataSort | null;
  /** Per column (by position), its condition as typed. */
  filters: ReadonlyMap<number, string>;
  pages: ReadonlyMap<number, DataPage>;
  summaries: DataColumnSummary[] | null;
  /** Why the view shows no (fresh) data: gone, busy, no kernel, a filter the kernel refused. */
  message: string | null;
  gone: boolean;
  loading: boolean;
  /** What the last export did, or why it failed. */
  exported: string | null;
}

/** A filter as typed ("> 5", "<= 2.5", "= x", "!= 0", "empty", "not empty", or text) -> the kernel's condition. */
export function parseFilter(column: number, text: string, kind: DataColumn['kind']): DataFilter | null {
  const typed = text.trim();
  if (!typed) return null;
  if (/^empty$/i.test(typed)) return { column, op: 'missing', value: '' };
  if (/^not empty$/i.test(typed)) return { column, op: 'present', value: '' };
  const compare = /^(>=|<=|!=|=|>|<)\s*(.+)$/.exec(typed);
  const ops = { '>=': 'ge', '<=': 'le', '!=': 'ne', '=': 'eq', '>': 'gt', '<': 'lt' } as const;
  if (compare) return { column, op: ops[compare[1] as keyof typeof ops], value: compare[2].trim() };
  if (kind === 'number' && Number.isFinite(Number(typed))) return { column, op: 'eq', value: typed };
  return { column, op: 'contains', value: typed };
}

/**
 * One data viewer tab's view of a kernel variable: pages fetched as the grid scrolls to them (one request at a
 * time, the newest wanted first), sorting and filtering asked of the kernel, everything fetched again when the
 * notebook's runs end (notebook.variablesChanged) so the view follows the variable.
 */
export class DataViewStore extends Store<DataViewState> {
  private generation = 0;
  private wanted = new Set<number>();
  private fetching: number | null = null;

  constructor(
    private readonly bridge: KilnBridge,
    readonly notebook: string,
    readonly name: string,
  ) {
    super({
      kind: null,
      total: 0,
      rows: 0,
      columns: [],
      indexName: null,
      sort: null,
      filters: new Map(),
      pages: new Map(),
      summaries: null,
      message: null,
      gone: false,
      loading: true,
      exported: null,
    });
    this.own(
      bridge.on('notebook.variablesChanged', ({ path }) => {
        if (path === notebook) this.reload(true);
      }),
    );
  }

  /** The kernel's conditions for the filters typed. */
  get filters(): DataFilter[] {
    const out: DataFilter[] = [];
    for (const [column, text] of this.state.filters) {
      const filter = parseFilter(column, text, this.state.columns[column]?.kind ?? 'string');
      if (filter) out.push(filter);
    }
    return out;
  }

  /** The grid shows rows [first, last): fetches the pages it lacks. */
  show(first: number, last: number): void {
    for (let at = Math.floor(first / PAGE_ROWS) * PAGE_ROWS; at < Math.max(last, first + 1); at += PAGE_ROWS) {
      if (!this.state.pages.has(at)) this.wanted.add(at);
    }
    void this.pump();
  }

  /** Sorts by a column: ascending, then descending, then the variable's own order. */
  sortBy(column: number): void {
    const sort = this.state.sort;
    const next: DataSort | null =
      sort?.column !== column ? { column, descending: false } : sort.descending ? null : { column, descending: true };
    this.set({ sort: next });
    this.reload(false);
  }

  setFilter(column: number, text: string): void {
    const filters = new Map(this.state.filters);
    if (text.trim()) filters.set(column, text);
    else filters.delete(column);
    this.set({ filters });
    this.reload(false);
  }

  /** Drops the pages (the view or the variable changed) and fetches what the grid shows again. */
  reload(withSummary: boolean): void {
    this.generation++;
    this.wanted = new Set([0]);
    this.fetching = null;
    this.set({ pages: new Map(), loading: true, ...(withSummary ? { summaries: null } : {}) });
    void this.pump().then(() => {
      if (withSummary) void this.loadSummary();
    });
  }

  async loadSummary(): Promise<void> {
    const generation = this.generation;
    const answer = await this.bridge
      .request('notebook.dataSummary', { path: this.notebook, name: this.name })
      .catch((err: unknown) => ({ status: 'error' as const, message: errorText(err) }));
    if (generation !== this.generation || answer.status !== 'ok') return;
    this.set({ summaries: answer.summaries });
  }

  /** The rows [from, to) of the loaded pages, fetching missing ones first (a copy of a selection). */
  async rowsOf(from: number, to: number): Promise<{ index: DataPage['index'][number]; cells: Cell[] }[]> {
    const out: { index: DataPage['index'][number]; cells: Cell[] }[] = [];
    for (let row = from; row < to; row++) {
      const at = Math.floor(row / PAGE_ROWS) * PAGE_ROWS;
      let page = this.state.pages.get(at);
      if (!page) {
        await this.fetch(at);
        page = this.state.pages.get(at);
        if (!page) break;
      }
      const i = row - at;
      if (i >= page.index.length) break;
      out.push({ index: page.index[i], cells: page.data.map((column) => column[i]) });
    }
    return out;
  }

  async exportCsv(to: string): Promise<void> {
    this.set({ exported: 'Exporting…' });
    try {
      const answer = await this.bridge.request('notebook.dataExport', {
        path: this.notebook,
        name: this.name,
        sort: this.state.sort,
        filters: this.filters,
        to,
      });
      this.set({
        exported:
          answer.status === 'ok' ? `Exported ${answer.rows.toLocaleString()} rows to ${answer.path}` : answer.message,
      });
    } catch (err) {
      this.set({ exported: `Could not export: ${errorText(err)}` });
    }
  }

  private async pump(): Promise<void> {
    while (this.fetching === null && this.wanted.size) {
      // The page asked for last is the one the grid shows now.
      const at = [...this.wanted].pop()!;
      this.wanted.delete(at);
      if (this.state.pages.has(at)) continue;
      await this.fetch(at);
    }
  }

  private async fetch(at: number): Promise<void> {
    const generation = this.generation;
    this.fetching = at;
    try {
      const answer = await this.bridge
        .request('notebook.dataPage', {
          path: this.notebook,
          name: this.name,
          sort: this.state.sort,
          filters: this.filters,
          offset: at,
          limit: PAGE_ROWS,
        })
        .catch((err: unknown) => ({ status: 'error' as const, message: errorText(err) }));
      if (generation !== this.generation || this.isDisposed) return;
      if (answer.status !== 'ok') {
        this.set({ message: answer.message, gone: answer.status === 'gone', loading: false });
        return;
      }
      const pages = new Map(this.state.pages).set(at, { index: answer.index, data: answer.data });
      this.set({
        kind: answer.kind,
        total: answer.total,
        rows: answer.rows,
        columns: answer.columns,
        indexName: answer.indexName,
        pages,
        message: null,
        gone: false,
        loading: false,
      });
    } finally {
      if (this.fetching === at && generation === this.generation) this.fetching = null;
    }
    if (generation === this.generation) void this.pump();
  }
}

/** Rows as tab-separated text with a header line (what a spreadsheet pastes as cells). */
export function toTsv(header: string[], rows: Cell[][]): string {
  const cell = (value: Cell) => (value === null ? '' : String(value).replace(/[\t\r\n]+/g, ' '));
  return [header.map((h) => cell(h)), ...rows.map((row) => row.map(cell))].map((line) => line.join('\t')).join('\n');
}

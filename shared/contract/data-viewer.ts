import { z } from 'zod';
import { request } from './define';
import { VariablesMiss } from './variables';
import { RelPath } from './workspace';

/*
 * The data viewer: a DataFrame, Series, NumPy array, list of dicts or polars DataFrame of a notebook's live kernel,
 * paged, sorted and filtered kernel-side (never the whole frame across). Its requests follow the Variables view's
 * rules: silent, no history, never sent while a cell runs; a busy, dead or missing kernel is an answer, not an error.
 */

/** The most rows one page holds. */
export const DATA_PAGE_LIMIT = 500;
/** The most rows a CSV export writes (the filtered view's, all columns). */
export const DATA_EXPORT_MAX_ROWS = 1_000_000;

export const DataColumnKind = z.enum(['number', 'string', 'bool', 'datetime', 'other']);
export type DataColumnKind = z.infer<typeof DataColumnKind>;

export const DataColumn = z.object({ name: z.string(), dtype: z.string(), kind: DataColumnKind });
export type DataColumn = z.infer<typeof DataColumn>;

/** A per-column condition: text contains (case-insensitive), a comparison, or missing / present. */
export const DataFilter = z.object({
  column: z.number().int().min(0),
  op: z.enum(['contains', 'eq', 'ne', 'lt', 'le', 'gt', 'ge', 'missing', 'present']),
  value: z.string().max(1000).default(''),
});
export type DataFilter = z.infer<typeof DataFilter>;

export const DataSort = z.object({ column: z.number().int().min(0), descending: z.boolean() });
export type DataSort = z.infer<typeof DataSort>;

/** Which view of which variable: the sort and filters apply kernel-side. */
export const DataView = z.object({
  path: RelPath,
  name: z.string().min(1).max(500),
  sort: DataSort.nullable().default(null),
  filters: z.array(DataFilter).max(50).default([]),
});
export type DataView = z.infer<typeof DataView>;

const Cell = z.union([z.string(), z.number(), z.boolean(), z.null()]);

/** Not a page, and why: the variable is gone, or of a type the viewer does not show. */
export const DataMiss = z.object({ status: z.enum(['gone', 'unsupported']), message: z.string() });
export type DataMiss = z.infer<typeof DataMiss>;

export const DataPageResult = z.union([
  z.object({
    status: z.literal('ok'),
    /** What the variable is: 'DataFrame', 'Series', 'ndarray', 'records' (a list of dicts) or 'polars'. */
    kind: z.string(),
    /** Rows of the variable, and of the view (after filters). */
    total: z.number().int(),
    rows: z.number().int(),
    offset: z.number().int(),
    columns: z.array(DataColumn),
    indexName: z.string().nullable(),
    /** The index label of each row of the page (an array's or list's: its position). */
    index: z.array(z.union([z.string(), z.number(), z.null()])),
    /** Column-major: data[column][row]; NaN and missing are null, text is cut at 200 characters. */
    data: z.array(z.array(Cell)),
  }),
  DataMiss,
  VariablesMiss,
]);
export type DataPageResult = z.infer<typeof DataPageResult>;

export const DataColumnSummary = z.object({
  count: z.number().int(),
  missing: z.number().int(),
  min: Cell,
  max: Cell,
  /** The five most frequent values with their counts (text and bool columns). */
  top: z.array(z.tuple([z.string(), z.number().int()])).nullable(),
  /** The top values come from a spread sample of a million rows, not every row. */
  sampled: z.boolean(),
  error: z.string().optional(),
});
export type DataColumnSummary = z.infer<typeof DataColumnSummary>;

export const DataSummaryResult = z.union([
  z.object({ status: z.literal('ok'), summaries: z.array(DataColumnSummary) }),
  DataMiss,
  VariablesMiss,
]);
export type DataSummaryResult = z.infer<typeof DataSummaryResult>;

export const DataExportResult = z.union([
  z.object({ status: z.literal('ok'), path: RelPath, rows: z.number().int(), hash: z.string() }),
  DataMiss,
  VariablesMiss,
]);
export type DataExportResult = z.infer<typeof DataExportResult>;

export const dataViewerRequests = {
  /** Up to `limit` rows of the view from `offset`, with its columns and row counts. */
  'notebook.dataPage': request(
    DataView.extend({
      offset: z.number().int().min(0).default(0),
      limit: z.number().int().min(1).max(DATA_PAGE_LIMIT).default(200),
    }),
    DataPageResult,
  ),
  /** Per column of the variable: count, missing, min/max (numbers, dates) or top values (text, bool). */
  'notebook.dataSummary': request(z.object({ path: RelPath, name: z.string().min(1).max(500) }), DataSummaryResult),
  /** Writes the (filtered, sorted) view as CSV to `to` in the workspace, as any operator write (history, change feed). */
  'notebook.dataExport': request(DataView.extend({ to: RelPath }), DataExportResult),
} as const;

/** The tab of a data viewer: `<notebook path>::data/<variable>`; its name (after the last '/') is the variable's. */
export const DATA_VIEWER_TAB = '::data/';

export function dataViewerTab(notebook: string, name: string): string {
  return `${notebook}${DATA_VIEWER_TAB}${name}`;
}

export function parseDataViewerTab(tab: string): { notebook: string; name: string } | null {
  const at = tab.lastIndexOf(DATA_VIEWER_TAB);
  if (at <= 0) return null;
  return { notebook: tab.slice(0, at), name: tab.slice(at + DATA_VIEWER_TAB.length) };
}

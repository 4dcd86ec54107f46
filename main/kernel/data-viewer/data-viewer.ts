import type { Kernel } from '@jupyterlab/services';
import { z } from 'zod';
import {
  DataColumnSummary,
  DATA_EXPORT_MAX_ROWS,
  DataPageResult,
  type DataExportResult,
  type DataFilter,
  type DataMiss,
  type DataSort,
  type DataSummaryResult,
  type VariablesMiss,
} from '../../../shared/contract';
import type { DataViewerKind, KernelAssist } from '../kernel-assist';
import { execute, missOf, whyUnavailable, type VariablesTarget } from '../variables';
import { DATA_VIEWER_MODULE, DATA_VIEWER_PY } from './snippet';

const MIME = 'application/vnd.kiln.data-viewer+json';
/** A sort or filter of 10 million rows takes seconds on a loaded machine; an export of a million rows longer. */
const ANSWER_MS: Record<DataViewerKind, number> = { dataPage: 60_000, dataSummary: 60_000, dataExport: 300_000 };
/** How long a request waits for a running cell (or our previous request) before it answers 'busy'. */
const WAIT_MS = 5_000;

export interface DataViewerOptions {
  assist: KernelAssist;
  target: () => VariablesTarget | null;
}

const Missing = z.union([
  z.object({ gone: z.literal(true) }),
  z.object({ unsupported: z.string() }),
  z.object({ tooMany: z.number().int() }),
]);
const Page = DataPageResult.options[0].omit({ status: true });
const Summary = z.object({ summaries: z.array(DataColumnSummary) });
const Csv = z.object({ csv: z.string(), rows: z.number().int() });

/**
 * The data viewer's requests to a notebook's live kernel: a page of a view, the columns' summary, a view as CSV.
 *
 * As the Variables view's (main/kernel/variables.ts): one execute_request with empty code, `silent: true`,
 * `store_history: false` and the call as a user expression, the code in a private module in sys.modules, sent by
 * the assist's rules (never while a cell runs). The kernel keeps each variable's newest sorted / filtered
 * positions, so paging a sorted 10-million-row view costs a page, not a sort.
 */
export class DataViewer {
  private nextId = -1_000_000;

  constructor(private readonly options: DataViewerOptions) {}

  connection(): Kernel.IKernelConnection | null {
    return this.options.target()?.assistKernel() ?? null;
  }

  async page(
    name: string,
    view: { sort: DataSort | null; filters: DataFilter[] },
    offset: number,
    limit: number,
  ): Promise<DataPageResult> {
    const answer = await this.evaluate(
      'dataPage',
      `k.page(${NS}, ${pyString(name)}, ${offset}, ${limit}, ${pyJson(view.sort)}, ${pyJson(view.filters)})`,
    );
    if ('status' in answer) return answer;
    const miss = missing(name, answer.data);
    if (miss) return miss;
    const parsed = Page.safeParse(answer.data);
    if (!parsed.success) return unreadable('page');
    return { status: 'ok', ...parsed.data };
  }

  async summary(name: string): Promise<DataSummaryResult> {
    const answer = await this.evaluate('dataSummary', `k.summary(${NS}, ${pyString(name)})`);
    if ('status' in answer) return answer;
    const miss = missing(name, answer.data);
    if (miss) return miss;
    const parsed = Summary.safeParse(answer.data);
    if (!parsed.success) return unreadable('summary');
    return { status: 'ok', ...parsed.data };
  }

  /** The view as CSV text, for the caller to write through the workspace; at most DATA_EXPORT_MAX_ROWS rows. */
  async csv(
    name: string,
    view: { sort: DataSort | null; filters: DataFilter[] },
  ): Promise<{ status: 'ok'; csv: string; rows: number } | Exclude<DataExportResult, { status: 'ok' }>> {
    const answer = await this.evaluate(
      'dataExport',
      `k.export_csv(${NS}, ${pyString(name)}, ${pyJson(view.sort)}, ${pyJson(view.filters)}, ${DATA_EXPORT_MAX_ROWS})`,
    );
    if ('status' in answer) return answer;
    const miss = missing(name, answer.data);
    if (miss) return miss;
    const parsed = Csv.safeParse(answer.data);
    if (!parsed.success) return unreadable('export');
    return { status: 'ok', ...parsed.data };
  }

  private async evaluate(kind: DataViewerKind, call: string): Promise<{ data: unknown } | VariablesMiss> {
    const unavailable = whyUnavailable(this.options.target()?.info ?? null);
    if (unavailable) return dataWords(unavailable);
    const expression = `(lambda k: k.Answer(${call}))(${INSTALL})`;
    const reply = await this.options.assist.whenFree(kind, this.nextId--, (kernel) => execute(kernel, expression), {
      waitMs: WAIT_MS,
      answerMs: ANSWER_MS[kind],
    });
    if ('status' in reply) return dataWords(missOf(reply.status, this.options.target()?.info ?? null));
    const content = reply.content;
    if (content.status !== 'ok')
      return { status: 'error', message: `The kernel refused the request (${content.status})` };
    const value = content.user_expressions.kiln as
      { status: 'ok'; data: Record<string, unknown> } | { status: 'error'; ename: string; evalue: string } | undefined;
    if (!value) return { status: 'error', message: 'The kernel did not evaluate the data viewer request' };
    if (value.status !== 'ok') return { status: 'error', message: `${value.ename}: ${value.evalue}` };
    if (!(MIME in value.data)) return { status: 'error', message: 'The kernel did not answer with data' };
    return { data: value.data[MIME] };
  }
}

/** The Variables view's words, said of the data. */
function dataWords(miss: VariablesMiss): VariablesMiss {
  if (miss.status === 'busy') return { status: 'busy', message: 'A cell is running: the data shows when it ends.' };
  if (miss.status === 'unsupported')
    return { status: 'unsupported', message: 'The data viewer works with Python kernels' };
  return miss;
}

function missing(name: string, data: unknown): DataMiss | { status: 'error'; message: string } | null {
  const parsed = Missing.safeParse(data);
  if (!parsed.success) return null;
  if ('gone' in parsed.data) return { status: 'gone', message: goneMessage(name) };
  if ('unsupported' in parsed.data)
    return {
      status: 'unsupported',
      message: `${name} is a ${parsed.data.unsupported}: the data viewer shows DataFrames, Series, 1-D and 2-D arrays, lists of dicts and polars DataFrames`,
    };
  return {
    status: 'error',
    message: `The view has ${parsed.data.tooMany} rows: an export writes at most ${DATA_EXPORT_MAX_ROWS}; filter it first`,
  };
}

/** An output's handle (Out[n]) goes when Out is cleared or the kernel restarts: the words say which it was. */
function goneMessage(name: string): string {
  return OUT_HANDLE.test(name)
    ? `${name} is no longer in the kernel: its output history was cleared or the kernel restarted`
    : `${name} is no longer in the kernel`;
}

function unreadable(what: string): { status: 'error'; message: string } {
  return { status: 'error', message: `The kernel answered the data viewer's ${what} in a form Kiln does not read` };
}

/** A cell's result in IPython's output history, as the data viewer names an output it opens (Out[3]). */
export const OUT_HANDLE = /^Out\[\d+\]$/;

const NS = `__import__('IPython').get_ipython().user_ns`;

/** A JSON string literal is a Python string literal too: names and filters reach the kernel as data, never as code. */
function pyString(text: string): string {
  return JSON.stringify(text);
}

function pyJson(value: unknown): string {
  return `__import__('json').loads(${JSON.stringify(JSON.stringify(value))})`;
}

/** Installs the module once per kernel (or reuses it) inside one expression: no statement, so no name is bound. */
const INSTALL =
  `(__import__('sys').modules.get('${DATA_VIEWER_MODULE}') or (lambda m: (` +
  `__import__('sys').modules.__setitem__(m.__name__, m), exec(${JSON.stringify(DATA_VIEWER_PY)}, m.__dict__), m)[2])` +
  `(__import__('types').ModuleType('${DATA_VIEWER_MODULE}')))`;

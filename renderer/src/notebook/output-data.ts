import { createContext } from 'react';
import type { NotebookOutput } from '../../../shared/contract';
import { joinMultiline } from '../../../shared/contract';

/**
 * "Open in Data Viewer" on a cell's result. The result is recognised from the bundle the kernel sent, as the
 * operator sees it: a pandas DataFrame by its HTML table (class "dataframe"), a Series by its dtype footer, a
 * NumPy array by `array(`, a polars DataFrame by its `shape: (rows, columns)` line. The data viewer then
 * asks the kernel for the value itself, by a handle (dataHandle): what it is not is said there, in words.
 */

/** Opens the data viewer on a handle of the notebook's kernel (NotebookView provides it; none outside a notebook). */
export const OpenDataContext = createContext<((handle: string) => void) | null>(null);

const SERIES_FOOTER = /(^|\n)(Name: .*, )?(Length: \d+, )?dtype: [\w[\], ]+\s*$/;

function text(value: unknown): string {
  return typeof value === 'string' || Array.isArray(value) ? joinMultiline(value as string | string[]) : '';
}

/** The output is a cell's result that shows a DataFrame, Series, array or polars frame. */
export function isDataResult(output: NotebookOutput): boolean {
  if (output.output_type !== 'execute_result') return false;
  const data = (output.data ?? {}) as Record<string, unknown>;
  const html = text(data['text/html']);
  const plain = text(data['text/plain']);
  if (/<table[^>]*class="dataframe"/.test(html)) return true;
  if (/^shape: \(\d+, \d+\)/m.test(plain) || /shape: \(\d+, \d+\)/.test(html.slice(0, 2000))) return true;
  if (/^array\(/.test(plain)) return true;
  return SERIES_FOOTER.test(plain);
}

const PLAIN_NAME = /^[A-Za-z_]\w*$/;

/**
 * How the data viewer finds a cell's result in the kernel: the cell's last statement when it is a plain name (`df`: the
 * tab follows the variable), else the result's entry in IPython's output history (`Out[3]`); null without either.
 */
export function dataHandle(source: string, executionCount: number | null): string | null {
  // The last statement of the last line (`df = pd.DataFrame(…); df`); a `;` inside a string leaves no plain name.
  const statements = (source.trimEnd().split('\n').pop() ?? '').split(';').map((part) => part.trim());
  const last = statements.filter(Boolean).pop() ?? '';
  if (PLAIN_NAME.test(last) && !['None', 'True', 'False'].includes(last)) return last;
  return executionCount !== null ? `Out[${executionCount}]` : null;
}

import type { ExactNumberText, MimeChange, OutputDiff } from './types';
import { isRecord, joinMultiline, sameJson, sameMultiline } from './values';

/*
 * Outputs of one cell, old against new: aligned by an LCS over equal outputs, the rest paired in place when of the
 * same output_type (a re-run that printed other numbers is one output changed, not one removed and one added),
 * then compared per MIME type; an image by its bytes (its base64 without the line breaks some writers add).
 */

/** Past this many output pairs the LCS is skipped and outputs are paired by position (a cell with thousands). */
const MAX_LCS_CELLS = 40_000;

const WHITESPACE = /\s+/g;

function isBinaryMime(mime: string): boolean {
  return mime.startsWith('image/') && mime !== 'image/svg+xml';
}

/** JSON MIME types hold structure, never lines (nbformat's rule). */
function isJsonMime(mime: string): boolean {
  return mime === 'application/json' || (mime.startsWith('application/') && mime.endsWith('+json'));
}

function base64Bytes(value: unknown): number | undefined {
  const text = joinMultiline(value);
  if (typeof text !== 'string') return undefined;
  const compact = text.replace(WHITESPACE, '');
  const padding = compact.endsWith('==') ? 2 : compact.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((compact.length * 3) / 4) - padding);
}

function sameMime(mime: string, a: unknown, b: unknown, exact: ExactNumberText | undefined, x: object, y: object) {
  if (isBinaryMime(mime)) {
    const p = joinMultiline(a);
    const q = joinMultiline(b);
    if (typeof p === 'string' && typeof q === 'string')
      return p === q || p.replace(WHITESPACE, '') === q.replace(WHITESPACE, '');
  }
  if (isJsonMime(mime)) return sameJson(a, b, exact, x, y, mime);
  return sameMultiline(a, b, exact, x, y, mime);
}

export interface OutputCompareOptions {
  ignoreExecutionCounts: boolean;
  exact?: ExactNumberText;
}

function mimeChanges(oldData: unknown, newData: unknown, options: OutputCompareOptions): MimeChange[] {
  const x = isRecord(oldData) ? oldData : {};
  const y = isRecord(newData) ? newData : {};
  const out: MimeChange[] = [];
  for (const mime of [...new Set([...Object.keys(x), ...Object.keys(y)])].sort()) {
    const binary = isBinaryMime(mime);
    const inOld = Object.hasOwn(x, mime);
    const inNew = Object.hasOwn(y, mime);
    if (inOld && inNew && sameMime(mime, x[mime], y[mime], options.exact, x, y)) continue;
    const change: MimeChange = { mime, status: inOld && inNew ? 'changed' : inOld ? 'deleted' : 'added', binary };
    if (binary && inOld) change.oldBytes = base64Bytes(x[mime]);
    if (binary && inNew) change.newBytes = base64Bytes(y[mime]);
    out.push(change);
  }
  return out;
}

/** The fields of two outputs that differ, `data` split per MIME type. */
function compareOutput(
  a: unknown,
  b: unknown,
  options: OutputCompareOptions,
): { mimes: MimeChange[]; fields: string[] } {
  const x = isRecord(a) ? a : {};
  const y = isRecord(b) ? b : {};
  const fields: string[] = [];
  let mimes: MimeChange[] = [];
  for (const key of [...new Set([...Object.keys(x), ...Object.keys(y)])].sort()) {
    if (key === 'execution_count' && options.ignoreExecutionCounts) continue;
    if (key === 'data') {
      mimes = mimeChanges(x.data, y.data, options);
      continue;
    }
    const same =
      Object.hasOwn(x, key) &&
      Object.hasOwn(y, key) &&
      (key === 'text'
        ? sameMultiline(x[key], y[key], options.exact, x, y, key)
        : sameJson(x[key], y[key], options.exact, x, y, key));
    if (!same) fields.push(key);
  }
  return { mimes, fields };
}

function outputType(output: unknown): string {
  return isRecord(output) && typeof output.output_type === 'string' ? output.output_type : 'unknown';
}

/** Whether two bundles have the same MIME types with the same content. */
function sameData(a: unknown, b: unknown, options: OutputCompareOptions): boolean {
  if (!isRecord(a) || !isRecord(b)) return sameJson(a, b, options.exact);
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((mime) => Object.hasOwn(b, mime) && sameMime(mime, a[mime], b[mime], options.exact, a, b));
}

/** Equality under the options, without building the description compareOutput makes (the common case). */
export function sameOutput(a: unknown, b: unknown, options: OutputCompareOptions): boolean {
  if (!isRecord(a) || !isRecord(b)) return sameJson(a, b, options.exact);
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) {
    const { mimes, fields } = compareOutput(a, b, options);
    return mimes.length === 0 && fields.length === 0;
  }
  return keys.every((key) => {
    if (!Object.hasOwn(b, key)) return false;
    if (key === 'execution_count' && options.ignoreExecutionCounts) return true;
    if (key === 'data') return sameData(a.data, b.data, options);
    if (key === 'text') return sameMultiline(a.text, b.text, options.exact, a, b, key);
    return sameJson(a[key], b[key], options.exact, a, b, key);
  });
}

/** Whether two output lists are equal under the options (the common case, checked before any alignment). */
export function sameOutputs(a: readonly unknown[], b: readonly unknown[], options: OutputCompareOptions): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!sameOutput(a[i], b[i], options)) return false;
  return true;
}

/** Pairs of indexes (old, new) of equal outputs, in order: an LCS. */
function equalPairs(a: readonly unknown[], b: readonly unknown[], options: OutputCompareOptions): [number, number][] {
  const n = a.length;
  const m = b.length;
  if (n * m > MAX_LCS_CELLS) return [];
  const eq = (i: number, j: number) => sameOutput(a[i], b[j], options);
  // lengths[i][j]: LCS of a[i..], b[j..].
  const lengths = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lengths[i][j] = eq(i, j) ? lengths[i + 1][j + 1] + 1 : Math.max(lengths[i + 1][j], lengths[i][j + 1]);
  const pairs: [number, number][] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (lengths[i][j] === lengths[i + 1][j + 1] + 1 && eq(i, j)) pairs.push([i++, j++]);
    else if (lengths[i + 1][j] >= lengths[i][j + 1]) i++;
    else j++;
  }
  return pairs;
}

/** The old and new outputs of a cell aligned; null when they are equal under the options. */
export function diffOutputs(
  a: readonly unknown[],
  b: readonly unknown[],
  options: OutputCompareOptions,
): OutputDiff[] | null {
  if (sameOutputs(a, b, options)) return null;
  const out: OutputDiff[] = [];
  const gap = (i0: number, i1: number, j0: number, j1: number) => {
    let i = i0;
    let j = j0;
    // In place while the types agree; the rest of either side is deleted / added.
    for (; i < i1 && j < j1 && outputType(a[i]) === outputType(b[j]); i++, j++) {
      const { mimes, fields } = compareOutput(a[i], b[j], options);
      out.push({ status: 'changed', oldIndex: i, newIndex: j, outputType: outputType(b[j]), mimes, fields });
    }
    for (; i < i1; i++)
      out.push({ status: 'deleted', oldIndex: i, newIndex: null, outputType: outputType(a[i]), mimes: [], fields: [] });
    for (; j < j1; j++)
      out.push({ status: 'added', oldIndex: null, newIndex: j, outputType: outputType(b[j]), mimes: [], fields: [] });
  };
  let i = 0;
  let j = 0;
  for (const [pi, pj] of equalPairs(a, b, options)) {
    gap(i, pi, j, pj);
    out.push({ status: 'unchanged', oldIndex: pi, newIndex: pj, outputType: outputType(b[pj]), mimes: [], fields: [] });
    i = pi + 1;
    j = pj + 1;
  }
  gap(i, a.length, j, b.length);
  return out;
}

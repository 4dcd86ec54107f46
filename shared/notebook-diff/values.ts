import type { ExactNumberText, KeyChange } from './types';

/*
 * Equality as it shows on disk: a multiline field (source, stream text, text/* data) read as a list of lines or as
 * one string is the same value (nbformat joins and re-splits it on write), and a number is equal to another only
 * when they would be written alike (2.0 is not 2 when the file says so).
 */

/** A multiline field as one string (nbformat's rejoin); anything that is not one as it is. */
export function joinMultiline(value: unknown): unknown {
  if (Array.isArray(value) && value.every((line) => typeof line === 'string')) return value.join('');
  return value;
}

export function textOf(value: unknown): string {
  const joined = joinMultiline(value);
  return typeof joined === 'string' ? joined : '';
}

function numberText(exact: ExactNumberText | undefined, holder: object | null, key: string | number): string | null {
  return (exact && holder && exact(holder, key)) ?? null;
}

/** Deep equality of two JSON values read from notebooks; `holder`/`key` locate them for exact numbers. */
export function sameJson(
  a: unknown,
  b: unknown,
  exact?: ExactNumberText,
  holderA: object | null = null,
  holderB: object | null = null,
  key: string | number = '',
): boolean {
  if (a === b) {
    if (typeof a !== 'number' || !exact) return true;
    return numberText(exact, holderA, key) === numberText(exact, holderB, key);
  }
  if (typeof a === 'number' && typeof b === 'number') return Number.isNaN(a) && Number.isNaN(b);
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i], exact, a, b, i)) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const keys = Object.keys(x);
  if (keys.length !== Object.keys(y).length) return false;
  for (const k of keys) {
    if (!Object.hasOwn(y, k) || !sameJson(x[k], y[k], exact, x, y, k)) return false;
  }
  return true;
}

/** Equality of a field that may be multiline (source, text, a text/* bundle entry). */
export function sameMultiline(
  a: unknown,
  b: unknown,
  exact: ExactNumberText | undefined,
  holderA: object,
  holderB: object,
  key: string,
): boolean {
  // Most lists of lines are equal line for line: compared so, without joining megabytes of output text.
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((line, k) => line === b[k]))
    return a.every((line) => typeof line === 'string') || sameJson(a, b, exact, holderA, holderB, key);
  const x = joinMultiline(a);
  const y = joinMultiline(b);
  if (typeof x === 'string' || typeof y === 'string') return x === y;
  return sameJson(x, y, exact, holderA, holderB, key);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The keys of two objects whose values differ, in sorted order (as the file lists them); `skip` names keys that
 * are never compared (transient ones nbformat drops on write).
 */
export function keyChanges(
  oldObject: unknown,
  newObject: unknown,
  exact: ExactNumberText | undefined,
  skip: ReadonlySet<string> = new Set(),
  same: (key: string, a: unknown, b: unknown, x: object, y: object) => boolean = (key, a, b, x, y) =>
    sameJson(a, b, exact, x, y, key),
): KeyChange[] {
  const x = isRecord(oldObject) ? oldObject : {};
  const y = isRecord(newObject) ? newObject : {};
  const keys = [...new Set([...Object.keys(x), ...Object.keys(y)])].filter((k) => !skip.has(k)).sort();
  const out: KeyChange[] = [];
  for (const key of keys) {
    const inOld = Object.hasOwn(x, key) && x[key] !== undefined;
    const inNew = Object.hasOwn(y, key) && y[key] !== undefined;
    if (inOld && inNew) {
      if (!same(key, x[key], y[key], x, y)) out.push({ key, status: 'changed', old: x[key], new: y[key] });
    } else if (inOld) out.push({ key, status: 'deleted', old: x[key] });
    else if (inNew) out.push({ key, status: 'added', new: y[key] });
  }
  return out;
}

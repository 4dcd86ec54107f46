import { jsonPointer, numberOfText, textDescribes } from '../../../shared/python-json';
import { exactNumbersOf, hasExactNumbers, keepExactNumber } from './exact-numbers';

/*
 * Exact numbers across the contract: the renderer gets a tree of plain numbers plus, by JSON pointer, the text of
 * those a plain number cannot carry; what comes back (a restored cell, new metadata) gets them recorded again
 * where its values still match.
 */

/** The exact numbers under `root`, by JSON pointer from `at`; undefined when there are none. */
export function exactNumberPointers(root: unknown, at = ''): Record<string, string> | undefined {
  let out: Record<string, string> | undefined;
  const walk = (value: unknown, pointer: string): void => {
    if (typeof value !== 'object' || value === null) return;
    if (hasExactNumbers(value))
      for (const [key, text] of exactNumbersOf(value)) (out ??= {})[jsonPointer(pointer, key)] = text;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++)
        if (typeof value[i] === 'object' && value[i] !== null) walk(value[i], jsonPointer(pointer, i));
    } else {
      for (const key in value) {
        const item = (value as Record<string, unknown>)[key];
        if (typeof item === 'object' && item !== null) walk(item, jsonPointer(pointer, key));
      }
    }
  };
  walk(root, at);
  return out;
}

function unescapeToken(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

/**
 * Records under `root` the numbers `pointers` name (from `at`) where the value there still matches; a null where
 * a NaN or Infinity was (JSON carried it as null) becomes that number again.
 */
export function restoreExactNumbers(
  root: unknown,
  pointers: Readonly<Record<string, string>> | undefined,
  at = '',
): void {
  if (!pointers) return;
  for (const [pointer, text] of Object.entries(pointers)) {
    if (pointer !== at && !pointer.startsWith(`${at}/`)) continue;
    const tokens = pointer.slice(at.length).split('/').slice(1).map(unescapeToken);
    if (tokens.length === 0) continue;
    let container: unknown = root;
    for (const token of tokens.slice(0, -1)) {
      container =
        typeof container === 'object' && container !== null ? (container as Record<string, unknown>)[token] : undefined;
    }
    if (typeof container !== 'object' || container === null) continue;
    const key = tokens[tokens.length - 1];
    const holder = container as Record<string, unknown>;
    if (!(key in holder) || !textDescribes(text, holder[key])) continue;
    const value = numberOfText(text);
    holder[key] = value;
    keepExactNumber(holder, key, value, text);
  }
}

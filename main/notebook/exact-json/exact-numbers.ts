/*
 * Numbers whose written form a JavaScript number cannot carry (2.0, 1e+20, a 30-digit int), kept beside the
 * tree instead of in it: the parsed notebook stays plain JSON for validation, cloning and the contract, and the
 * writer asks here, per container and key, for the text to write. An entry counts only while the value at that
 * place is still the number that was read, so an edit that writes a new number there is written as itself.
 */

interface ExactNumber {
  /** The JavaScript number the literal reads as. */
  value: number;
  /** What Python's json writes for it. */
  text: string;
}

const exact = new WeakMap<object, Map<string, ExactNumber>>();

function same(a: number, b: unknown): boolean {
  return typeof b === 'number' && (a === b ? a !== 0 || Object.is(a, b) : Number.isNaN(a) && Number.isNaN(b));
}

/** Records that `container[key]` holds `value`, written as `text`. */
export function keepExactNumber(container: object, key: string | number, value: number, text: string): void {
  let entries = exact.get(container);
  if (!entries) exact.set(container, (entries = new Map()));
  entries.set(String(key), { value, text });
}

/** The text to write for `container[key]` when it is still the number that was read there, else undefined. */
export function exactNumberText(container: object, key: string | number): string | undefined {
  const entry = exact.get(container)?.get(String(key));
  if (!entry) return undefined;
  return same(entry.value, (container as Record<string, unknown>)[key]) ? entry.text : undefined;
}

/** Whether anything directly in `container` was recorded (a quick test before walking it). */
export function hasExactNumbers(container: object): boolean {
  return exact.has(container);
}

/** Every recorded number directly in `container`, by key, as text. */
export function exactNumbersOf(container: object): [string, string][] {
  const entries = exact.get(container);
  if (!entries) return [];
  const out: [string, string][] = [];
  for (const key of entries.keys()) {
    const text = exactNumberText(container, key);
    if (text !== undefined) out.push([key, text]);
  }
  return out;
}

/** Gives `copy` (a shallow copy of `original`) the numbers recorded for `original`. */
export function carryExactNumbers<T extends object>(original: object, copy: T): T {
  const entries = exact.get(original);
  if (entries) exact.set(copy, new Map(entries));
  return copy;
}

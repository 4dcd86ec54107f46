/*
 * Numbers as Python's json module writes them, so a notebook Kiln saves matches Jupyter's bytes: an int as its
 * digits, a float as repr(float) (shortest round-trip digits; exponent form below 1e-4 and from 1e16, with at
 * least two exponent digits; a ".0" on integral floats), and NaN / Infinity / -Infinity for the non-finite.
 */

/** repr(x) for a Python float with the value of `x`. */
export function pythonFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  // toExponential() without an argument gives the shortest digits that read back as x, as Python's repr does.
  const [mantissa, exp] = x.toExponential().split('e');
  const negative = mantissa.startsWith('-');
  const digits = mantissa.replace(/^-/, '').replace('.', '');
  const exponent = Number(exp);
  const sign = negative ? '-' : '';
  // Python's 'r' format: positional when -4 <= exponent < 16.
  if (exponent >= -4 && exponent < 16) {
    if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`;
    const intPart = digits.slice(0, exponent + 1).padEnd(exponent + 1, '0');
    const fraction = digits.slice(exponent + 1);
    return `${sign}${intPart}.${fraction || '0'}`;
  }
  const rest = digits.slice(1);
  const expText = `${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
  return `${sign}${digits[0]}${rest ? `.${rest}` : ''}e${expText}`;
}

/**
 * How Python writes a JavaScript number that carries no literal from a file: an integral value in the safe range
 * as an int (Kiln's own counts, widths), anything else as the float it is.
 */
export function pythonNumberText(x: number): string {
  if (Number.isInteger(x) && Math.abs(x) <= Number.MAX_SAFE_INTEGER) return String(x === 0 ? 0 : x);
  return pythonFloatRepr(x);
}

/**
 * What Python's json writes for a number literal it read: an int literal (no '.', 'e' or 'E') as its exact digits,
 * any other as repr(float(literal)). NaN, Infinity and -Infinity are Python's own spellings, written back as read.
 */
export function pythonTextOfLiteral(literal: string): string {
  if (literal === 'NaN' || literal === 'Infinity' || literal === '-Infinity') return literal;
  if (!/[.eE]/.test(literal)) return literal === '-0' ? '0' : literal;
  return pythonFloatRepr(Number(literal));
}

/** A JSON pointer one step below `parent` (RFC 6901: '~' and '/' escaped). */
export function jsonPointer(parent: string, key: string | number): string {
  return `${parent}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

/** The number `text` stands for (NaN, Infinity and -Infinity included). */
export function numberOfText(text: string): number {
  return text === 'NaN' ? NaN : Number(text);
}

/**
 * Whether the written `text` still describes `value`, allowing for what crossing JSON (the WebSocket contract)
 * did to it: a non-finite number arrives as null, and -0 as 0.
 */
export function textDescribes(text: string, value: unknown): boolean {
  const n = numberOfText(text);
  if (value === null) return !Number.isFinite(n);
  if (typeof value !== 'number') return false;
  return Object.is(n, value) || (n === 0 && value === 0);
}

/**
 * JSON text indented by `indent`, as JSON.stringify lays it out, with each number as the file wrote it: the text
 * in `numbers` (by JSON pointer from `at`) where it still describes the value, else as Python writes it.
 */
export function formatJsonExact(
  value: unknown,
  numbers: Readonly<Record<string, string>> | undefined,
  at = '',
  indent = 2,
): string {
  const write = (v: unknown, pointer: string, pad: string): string => {
    const recorded = numbers?.[pointer];
    if (recorded !== undefined && textDescribes(recorded, v)) return recorded;
    if (typeof v === 'number') return pythonNumberText(v);
    if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
    const inner = pad + ' '.repeat(indent);
    if (Array.isArray(v)) {
      if (v.length === 0) return '[]';
      return `[\n${v.map((item, i) => inner + write(item, jsonPointer(pointer, i), inner)).join(',\n')}\n${pad}]`;
    }
    const entries = Object.entries(v).filter(([, item]) => item !== undefined);
    if (entries.length === 0) return '{}';
    const lines = entries.map(
      ([key, item]) => `${inner}${JSON.stringify(key)}: ${write(item, jsonPointer(pointer, key), inner)}`,
    );
    return `{\n${lines.join(',\n')}\n${pad}}`;
  };
  return write(value, at, '');
}

/** `numbers` without the entries at or under `pointer` (what an output change made stale). */
export function numbersOutside(
  numbers: Readonly<Record<string, string>> | undefined,
  pointer: string,
): Record<string, string> | undefined {
  if (!numbers) return undefined;
  const kept = Object.entries(numbers).filter(([p]) => p !== pointer && !p.startsWith(`${pointer}/`));
  return kept.length ? Object.fromEntries(kept) : undefined;
}

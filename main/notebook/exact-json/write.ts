import { pythonNumberText } from '../../../shared/python-json';
import { exactNumberText, hasExactNumbers } from './exact-numbers';

/*
 * json.dumps(value, indent=1, sort_keys=True, ensure_ascii=False), byte for byte: keys sorted by code point,
 * strings escaped as Python escapes them (which is what JSON.stringify does for a well-formed string), numbers
 * as Python writes them (exact-numbers.ts for those read from a file, shared/python-json.ts for the rest).
 */

/** Python sorts str keys by code point; JavaScript's default sort compares UTF-16 units, which differs past U+D7FF. */
function byCodePoint(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i].codePointAt(0)! - y[i].codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

// What UTF-16 and code point order disagree on.
const SURROGATE_OR_ABOVE = /[\ud800-\uffff]/;

function sortedKeys(object: Record<string, unknown>): string[] {
  const keys = Object.keys(object);
  return keys.some((key) => SURROGATE_OR_ABOVE.test(key)) ? keys.sort(byCodePoint) : keys.sort();
}

export function writePythonJson(value: unknown): string {
  const parts: string[] = [];
  const indents = ['\n'];
  const indent = (depth: number) => (indents[depth] ??= `\n${' '.repeat(depth)}`);

  const write = (v: unknown, holder: object | null, key: string | number, depth: number): void => {
    switch (typeof v) {
      case 'string':
        parts.push(JSON.stringify(v));
        return;
      case 'number':
        parts.push((holder && hasExactNumbers(holder) && exactNumberText(holder, key)) || pythonNumberText(v));
        return;
      case 'boolean':
        parts.push(v ? 'true' : 'false');
        return;
      case 'object':
        break;
      default:
        parts.push('null');
        return;
    }
    if (v === null) {
      parts.push('null');
      return;
    }
    if (Array.isArray(v)) {
      if (v.length === 0) {
        parts.push('[]');
        return;
      }
      if (v.every((item) => typeof item === 'string')) {
        // Lines of source and output, most of a notebook's bytes: the engine lays them out in one call (a JSON
        // string never holds a raw newline, so re-indenting its lines is safe). split/join, not a regex replace:
        // four times faster on a 20 MB notebook's outputs.
        const nested = JSON.stringify(v, null, 1);
        parts.push(depth === 0 ? nested : nested.split('\n').join(indent(depth)));
        return;
      }
      parts.push('[');
      for (let i = 0; i < v.length; i++) {
        parts.push(i === 0 ? indent(depth + 1) : `,${indent(depth + 1)}`);
        write(v[i], v, i, depth + 1);
      }
      parts.push(indent(depth), ']');
      return;
    }
    const object = v as Record<string, unknown>;
    const keys = sortedKeys(object);
    const inner = indent(depth + 1);
    let written = 0;
    for (const k of keys) {
      const item = object[k];
      if (item === undefined || typeof item === 'function') continue;
      parts.push(written++ === 0 ? `{${inner}` : `,${inner}`, JSON.stringify(k), ': ');
      write(item, object, k, depth + 1);
    }
    parts.push(written === 0 ? '{}' : `${indent(depth)}}`);
  };

  write(value, null, '', 0);
  return parts.join('');
}

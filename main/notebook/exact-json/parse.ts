import { pythonNumberText, pythonTextOfLiteral } from '../../../shared/python-json';
import { JsonTooDeepError, MAX_JSON_DEPTH } from './depth';
import { recordExactNumbers } from './scan';
import { keepExactNumber } from './exact-numbers';

/*
 * JSON as Python's json.loads reads it (what Jupyter reads): standard JSON plus NaN, Infinity and -Infinity, with
 * every number whose Python text a JavaScript number would lose (2.0, 1e+20, an int past 2^53, -0.0, NaN) kept
 * in exact-numbers.ts. Strings are found with indexOf and decoded by the engine's JSON.parse only when they hold
 * an escape, so a notebook that is mostly output text costs about what JSON.parse does.
 */

export class JsonSyntaxError extends SyntaxError {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(`${message} at position ${position}`);
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
// eslint-disable-next-line no-control-regex -- a raw control character is what a JSON string may not hold
const CONTROL = /[\u0000-\u001f]/;
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const PLAIN_INT = /^-?[0-9]{1,15}$/;

class Parser {
  private pos = 0;
  /** Objects and arrays open around pos. */
  private depth = 0;
  /** The next backslash at or after pos (or -1): strings before it have no escapes. */
  private nextBackslash = -2;

  constructor(private readonly text: string) {}

  parseDocument(): unknown {
    const value = this.value(null, '');
    this.skipSpace();
    if (this.pos < this.text.length) this.fail('Unexpected data after the JSON value');
    return value;
  }

  private fail(message: string): never {
    throw new JsonSyntaxError(message, this.pos);
  }

  private skipSpace(): void {
    const text = this.text;
    let c = text.charCodeAt(this.pos);
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = text.charCodeAt(++this.pos);
  }

  /** A value; numbers that need it are recorded against `holder[key]`. */
  private value(holder: object | null, key: string | number): unknown {
    this.skipSpace();
    const text = this.text;
    const c = text.charCodeAt(this.pos);
    if (c === QUOTE) return this.string();
    if (c === 0x7b || c === 0x5b) {
      if (++this.depth > MAX_JSON_DEPTH) throw new JsonTooDeepError(this.pos);
      const nested = c === 0x7b ? this.object() : this.array();
      this.depth--;
      return nested;
    }
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      if (text.startsWith('-Infinity', this.pos)) return this.special('-Infinity', -Infinity, holder, key);
      return this.number(holder, key);
    }
    if (text.startsWith('true', this.pos)) return ((this.pos += 4), true);
    if (text.startsWith('false', this.pos)) return ((this.pos += 5), false);
    if (text.startsWith('null', this.pos)) return ((this.pos += 4), null);
    if (text.startsWith('NaN', this.pos)) return this.special('NaN', NaN, holder, key);
    if (text.startsWith('Infinity', this.pos)) return this.special('Infinity', Infinity, holder, key);
    this.fail(this.pos >= text.length ? 'Unexpected end of JSON input' : `Unexpected token ${text[this.pos]}`);
  }

  private special(word: string, value: number, holder: object | null, key: string | number): number {
    this.pos += word.length;
    if (holder) keepExactNumber(holder, key, value, word);
    return value;
  }

  private number(holder: object | null, key: string | number): number {
    NUMBER.lastIndex = this.pos;
    const match = NUMBER.exec(this.text);
    if (!match) this.fail('Bad number');
    const literal = match[0];
    this.pos += literal.length;
    const value = Number(literal);
    if (holder && !PLAIN_INT.test(literal)) {
      const text = pythonTextOfLiteral(literal);
      if (text !== pythonNumberText(value)) keepExactNumber(holder, key, value, text);
    }
    return value;
  }

  private string(): string {
    const text = this.text;
    const start = this.pos + 1;
    let end = text.indexOf('"', start);
    if (end < 0) this.fail('Unterminated string');
    if (this.nextBackslash !== -1 && this.nextBackslash < start) this.nextBackslash = text.indexOf('\\', start);
    if (this.nextBackslash === -1 || this.nextBackslash > end) {
      const value = text.slice(start, end);
      if (CONTROL.test(value)) this.fail('Bad control character in string literal');
      this.pos = end + 1;
      return value;
    }
    // Escapes: find the quote no backslash escapes, and let the engine decode (and check) the literal.
    for (;;) {
      let backslashes = 0;
      while (text.charCodeAt(end - 1 - backslashes) === BACKSLASH) backslashes++;
      if (backslashes % 2 === 0) break;
      end = text.indexOf('"', end + 1);
      if (end < 0) this.fail('Unterminated string');
    }
    let value: string;
    try {
      value = JSON.parse(text.slice(this.pos, end + 1)) as string;
    } catch {
      this.fail('Bad string');
    }
    this.pos = end + 1;
    return value;
  }

  private object(): Record<string, unknown> {
    const text = this.text;
    const out: Record<string, unknown> = {};
    this.pos++;
    this.skipSpace();
    if (text.charCodeAt(this.pos) === 0x7d) {
      this.pos++;
      return out;
    }
    for (;;) {
      this.skipSpace();
      if (text.charCodeAt(this.pos) !== QUOTE) this.fail('Expected a property name');
      const key = this.string();
      this.skipSpace();
      if (text.charCodeAt(this.pos) !== 0x3a) this.fail("Expected ':' after a property name");
      this.pos++;
      const value = this.value(out, key);
      // A "__proto__" key is data, as JSON.parse makes it.
      if (key === '__proto__')
        Object.defineProperty(out, key, { value, writable: true, enumerable: true, configurable: true });
      else out[key] = value;
      this.skipSpace();
      const c = text.charCodeAt(this.pos);
      if (c !== 0x2c && c !== 0x7d) this.fail("Expected ',' or '}' after a property value");
      this.pos++;
      if (c === 0x7d) return out;
    }
  }

  private array(): unknown[] {
    const text = this.text;
    const out: unknown[] = [];
    this.pos++;
    this.skipSpace();
    if (text.charCodeAt(this.pos) === 0x5d) {
      this.pos++;
      return out;
    }
    for (;;) {
      out.push(this.value(out, out.length));
      this.skipSpace();
      const c = text.charCodeAt(this.pos);
      if (c !== 0x2c && c !== 0x5d) this.fail("Expected ',' or ']' after an array element");
      this.pos++;
      if (c === 0x5d) return out;
    }
  }
}

/**
 * Parses `text` as Python's json.loads would. Throws JsonSyntaxError (with the offending offset) on anything
 * it refuses.
 */
export function parseExactJson(text: string): unknown {
  try {
    return new Parser(text).parseDocument();
  } catch (err) {
    if (err instanceof RangeError) throw new JsonTooDeepError(0);
    throw err;
  }
}

/**
 * parseExactJson's result, the fast way when the text is standard JSON: the engine's JSON.parse, then one scan
 * for the numbers to keep. Falls back to the full parser for what only Python reads (NaN, Infinity).
 */
export function parsePythonJson(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    try {
      return parseExactJson(text);
    } catch (exact) {
      // The engine's message is the one people know; report that, unless the document is only too deep.
      throw exact instanceof JsonTooDeepError ? exact : err;
    }
  }
  recordExactNumbers(text, value);
  return value;
}

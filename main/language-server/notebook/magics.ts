/*
 * IPython syntax a Python language server does not know, masked line by line so it raises no false errors.
 * Every masked line keeps its line number and its indentation, so positions map back exactly: a line
 * magic or shell escape becomes `pass` (or, after `name = `, `...`, so `name` stays defined), and a cell
 * in another language (`%%bash`) becomes lines of spaces. Python lines are returned untouched.
 */

/** Cell magics whose body is Python: only their first line is masked, so the body is still checked. */
const PYTHON_BODY_CELL_MAGICS = new Set(['time', 'timeit', 'capture', 'prun']);

/** `%magic`, `%%magic` (not at statement start), `!cmd`, `!!cmd`, `?obj`, `??obj` at the start of a statement. */
const STATEMENT_MAGIC = /^(\s*)([%!?].*)$/;
/** `name = %magic …` or `a, b = !cmd`: IPython's assignment forms. */
const ASSIGNED_MAGIC = /^(\s*[A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*\s*=\s*)([%!].*)$/;
/** `obj?`, `obj.attr??` as a whole line: a help request. */
const HELP_SUFFIX = /^(\s*)([A-Za-z_][\w.]*\s*\?\??\s*)$/;

/** Where the scanner stands at the end of a line: inside brackets, a triple-quoted string, or after a `\`. */
interface ScanState {
  depth: number;
  triple: '"""' | "'''" | null;
  continued: boolean;
}

/** `text` cut or padded with spaces to `length`, at least as long as `text` (a masked line never loses its stand-in). */
function fit(text: string, length: number): string {
  return text.length >= length ? text : text + ' '.repeat(length - text.length);
}

/** The stand-in for a statement that IPython runs: `pass`, or `...` as the value of an assignment. */
function maskLine(line: string): string | null {
  const assigned = ASSIGNED_MAGIC.exec(line);
  if (assigned) return fit(assigned[1] + '...', line.length);
  const help = HELP_SUFFIX.exec(line);
  if (help) return fit(help[1] + 'pass', line.length);
  const statement = STATEMENT_MAGIC.exec(line);
  if (statement) return fit(statement[1] + 'pass', line.length);
  return null;
}

/** Follows brackets, strings and continuations through one Python line (comments end it). */
function scanLine(line: string, state: ScanState): ScanState {
  let { depth, triple } = state;
  let quote: string | null = null;
  let i = 0;
  while (i < line.length) {
    const c = line[i];
    if (triple) {
      if (line.startsWith(triple, i)) {
        i += 3;
        triple = null;
      } else i += c === '\\' ? 2 : 1;
      continue;
    }
    if (quote) {
      if (c === '\\') i += 2;
      else {
        if (c === quote) quote = null;
        i += 1;
      }
      continue;
    }
    if (c === '#') break;
    if (line.startsWith('"""', i) || line.startsWith("'''", i)) {
      triple = line.slice(i, i + 3) as '"""' | "'''";
      i += 3;
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '(' || c === '[' || c === '{') depth += 1;
    else if ((c === ')' || c === ']' || c === '}') && depth > 0) depth -= 1;
    i += 1;
  }
  const continued = !triple && line.endsWith('\\');
  return { depth, triple, continued };
}

/** A line of spaces as long as `line`: whitespace-only lines are nothing to Python, whatever their indentation. */
function blank(line: string): string {
  return ' '.repeat(line.length);
}

/** The cell magic a cell starts with (`%%bash` gives `bash`), or null. */
export function cellMagicOf(source: string): string | null {
  const first = /^\s*%%([A-Za-z_][\w-]*)/.exec(source);
  return first ? first[1] : null;
}

/**
 * The lines of a code cell with IPython syntax masked. The result has exactly as many lines as `lines`,
 * and a Python line is returned as it was.
 */
export function maskCellLines(lines: readonly string[]): string[] {
  const magic = cellMagicOf(lines.join('\n'));
  if (magic !== null && !PYTHON_BODY_CELL_MAGICS.has(magic)) return lines.map(blank);
  let state: ScanState = { depth: 0, triple: null, continued: false };
  let magicLineSeen = magic === null;
  return lines.map((line) => {
    const atStatementStart = state.depth === 0 && !state.triple && !state.continued;
    if (!magicLineSeen && /^\s*%%/.test(line)) {
      magicLineSeen = true;
      return blank(line);
    }
    const masked = atStatementStart ? maskLine(line) : null;
    state = masked !== null ? { depth: 0, triple: null, continued: false } : scanLine(line, state);
    return masked ?? line;
  });
}

import { pythonNumberText, pythonTextOfLiteral } from '../../../shared/python-json';
import { JsonTooDeepError, MAX_JSON_DEPTH } from './depth';
import { keepExactNumber } from './exact-numbers';

/*
 * The fast path of parse.ts: after JSON.parse has built (and checked) the tree, one pass over the text finds the
 * number literals a JavaScript number loses (2.0, 1e+20, an int past 2^53) and records them where they sit in the
 * tree. It allocates nothing for the rest: strings are skipped with indexOf, keys are kept as offsets and only
 * decoded on the way to a number that needs recording.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Whether the quote at `at` is escaped (an odd run of backslashes before it). */
function escaped(text: string, at: number): boolean {
  let run = 0;
  while (text.charCodeAt(at - 1 - run) === BACKSLASH) run++;
  return run % 2 === 1;
}

interface Frames {
  isArray: boolean[];
  indexes: number[];
  keyStarts: number[];
  keyEnds: number[];
}

/** Records the literal text[start, end) at the place `frames` (down to `depth`) names, when Python would write it otherwise. */
function record(text: string, root: unknown, frames: Frames, depth: number, start: number, end: number): void {
  const literal = text.slice(start, end);
  const value = Number(literal);
  // A fraction (0.5) is written as the float it reads as; only integral values can lose how they were written.
  if (depth < 0 || (!Number.isInteger(value) && Number.isFinite(value))) return;
  const written = pythonTextOfLiteral(literal);
  if (written === pythonNumberText(value)) return;
  let container = root as Record<string | number, unknown>;
  for (let d = 0; d <= depth; d++) {
    const key = frames.isArray[d]
      ? frames.indexes[d]
      : (JSON.parse(text.slice(frames.keyStarts[d], frames.keyEnds[d] + 1)) as string);
    if (d === depth) keepExactNumber(container, key, value, written);
    else container = container[key] as Record<string | number, unknown>;
  }
}

/**
 * Records into exact-numbers.ts the numbers of `text` (valid JSON, already parsed into `root`) that need it.
 * Throws JsonTooDeepError past MAX_JSON_DEPTH (JSON.parse itself takes any depth; what walks the tree after does not).
 */
export function recordExactNumbers(text: string, root: unknown): void {
  const frames: Frames = { isArray: [], indexes: [], keyStarts: [], keyEnds: [] };
  const { isArray, indexes, keyStarts, keyEnds } = frames;
  let depth = -1;
  let expectKey = false;
  const length = text.length;
  let i = 0;
  while (i < length) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x0a) {
      i++;
    } else if (c === QUOTE) {
      let end = text.indexOf('"', i + 1);
      while (text.charCodeAt(end - 1) === BACKSLASH && escaped(text, end)) end = text.indexOf('"', end + 1);
      if (expectKey) {
        keyStarts[depth] = i;
        keyEnds[depth] = end;
        expectKey = false;
      }
      i = end + 1;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      // Only a literal with '.', 'e', 'E' or more than 15 characters can read as a number written otherwise.
      const start = i;
      let special = false;
      for (; i < length; i++) {
        const d = text.charCodeAt(i);
        if (d >= 0x30 && d <= 0x39) continue;
        if (d === 0x2e || d === 0x65 || d === 0x45 || d === 0x2b || d === 0x2d) special = true;
        else break;
      }
      if (special || i - start > 15) record(text, root, frames, depth, start, i);
    } else {
      if ((c === 0x7b || c === 0x5b) && depth + 1 >= MAX_JSON_DEPTH) throw new JsonTooDeepError(i);
      if (c === 0x7b) {
        isArray[++depth] = false;
        expectKey = true;
      } else if (c === 0x5b) {
        isArray[++depth] = true;
        indexes[depth] = 0;
      } else if (c === 0x7d || c === 0x5d) depth--;
      else if (c === 0x2c) {
        if (isArray[depth]) indexes[depth]++;
        else expectKey = true;
      }
      i++;
    }
  }
}

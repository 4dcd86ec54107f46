/**
 * How deep a notebook's JSON may nest. Jupyter reads notebooks with Python's json, which refuses past its recursion
 * limit (1000; nbformat's own walks give up near 450), so no notebook Jupyter opens nests deeper; and every later
 * walk over the tree (structuredClone, the writer, the contract) stays well inside the JavaScript stack at this depth.
 */
export const MAX_JSON_DEPTH = 1000;

/** The document nests deeper than MAX_JSON_DEPTH: refused whole, before anything walks it. */
export class JsonTooDeepError extends SyntaxError {
  constructor(readonly position: number) {
    super(`The JSON nests deeper than ${MAX_JSON_DEPTH} levels at position ${position}`);
  }
}

/**
 * Whether a parsed value nests deeper than `limit` levels. Walks with its own stack, so a value too deep for a
 * recursive walk (a kernel's output built by code that raised Python's recursion limit) is measured, not crashed on.
 */
export function nestsTooDeep(value: unknown, limit = MAX_JSON_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (item === null || typeof item !== 'object') continue;
    if (depth + 1 > limit) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) stack.push([child, depth + 1]);
  }
  return false;
}

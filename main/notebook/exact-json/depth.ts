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

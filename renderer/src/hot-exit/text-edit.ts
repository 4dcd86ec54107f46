/** The one edit that turns `before` into `after`: `text` replaces [start, end) of `before`. */
export interface TextEdit {
  start: number;
  end: number;
  text: string;
}

/**
 * Compared a block at a time: equality of two slices is a native compare, so a 5 MB buffer with one keystroke
 * changed is scanned in well under a millisecond (a character loop takes several).
 */
const BLOCK = 16 * 1024;
/** How much is compared between two yields of `textEditSteps`: a small fraction of a millisecond. */
const STEP = 256 * 1024;

/**
 * The smallest single edit from `before` to `after` (common head and tail kept; what lies between replaced), found
 * in steps: it yields after each STEP characters compared, so a caller can spread the work over idle moments.
 * The strings never change, so a pause between steps changes nothing.
 */
export function* textEditSteps(before: string, after: string): Generator<void, TextEdit, void> {
  const limit = Math.min(before.length, after.length);
  let head = 0;
  let compared = 0;
  while (head + BLOCK <= limit && before.slice(head, head + BLOCK) === after.slice(head, head + BLOCK)) {
    head += BLOCK;
    if ((compared += BLOCK) >= STEP) {
      compared = 0;
      yield;
    }
  }
  while (head < limit && before.charCodeAt(head) === after.charCodeAt(head)) head++;
  // The tail may not overlap the head in either text.
  const room = limit - head;
  let tail = 0;
  while (
    tail + BLOCK <= room &&
    before.slice(before.length - tail - BLOCK, before.length - tail) ===
      after.slice(after.length - tail - BLOCK, after.length - tail)
  ) {
    tail += BLOCK;
    if ((compared += BLOCK) >= STEP) {
      compared = 0;
      yield;
    }
  }
  while (tail < room && before.charCodeAt(before.length - 1 - tail) === after.charCodeAt(after.length - 1 - tail))
    tail++;
  return { start: head, end: before.length - tail, text: after.slice(head, after.length - tail) };
}

/** The same edit, found at once. */
export function textEdit(before: string, after: string): TextEdit {
  const steps = textEditSteps(before, after);
  let step = steps.next();
  while (!step.done) step = steps.next();
  return step.value;
}

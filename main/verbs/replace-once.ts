import { KilnError } from '../../shared/errors';

/*
 * edit-file's `replace` mode: the text to replace must occur exactly once, so a model's edit lands where it meant
 * or not at all, with an error that tells it how to do better.
 */

function countOccurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) count++;
  return count;
}

/** Replaces `old` with `replacement` when it occurs exactly once; otherwise says how many times it occurs. */
export function replaceExactlyOnce(text: string, old: string, replacement: string, rel: string): string {
  let needle = old;
  let swap = replacement;
  let count = countOccurrences(text, needle);
  // A model usually sends \n; match a CRLF file's line endings rather than fail.
  if (count === 0 && text.includes('\r\n') && old.includes('\n') && !old.includes('\r\n')) {
    needle = old.replace(/\n/g, '\r\n');
    swap = replacement.replace(/\r?\n/g, '\r\n');
    count = countOccurrences(text, needle);
  }
  if (count !== 1) {
    const why =
      count === 0
        ? `\`old\` was not found in "${rel}" (0 matches); copy the exact text from the file, whitespace included`
        : `\`old\` occurs ${count} times in "${rel}" (${count} matches); include more surrounding text so it matches exactly once`;
    throw new KilnError('E_BAD_REQUEST', why, { matches: count });
  }
  const at = text.indexOf(needle);
  return text.slice(0, at) + swap + text.slice(at + needle.length);
}

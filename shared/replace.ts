/*
 * Replace in Files, the part both sides need: the renderer previews a replacement and applies it to a dirty open
 * buffer, main applies it to files on disk and notebook cells. Pure: no I/O.
 */

/** Where a search found a match, as the operator saw it in the results. */
export interface ReplaceTarget {
  line: number;
  start: number;
  end: number;
  preview: string;
  previewStart: number;
}

/**
 * The replacement text for one regex match, as VS Code expands it: `$1`…`$99`, `$<name>`, `$&` (or `$0`) and `$$`;
 * `\n`, `\t` and `\\` insert a newline, a tab and a backslash. A literal search uses the text as it is.
 */
export function expandReplacement(match: RegExpExecArray, replacement: string): string {
  return replacement.replace(
    /\$(\$|&|<([^>]+)>|\d{1,2})|\\([nt\\])/g,
    (all, what: string, name?: string, esc?: string) => {
      if (esc) return esc === 'n' ? '\n' : esc === 't' ? '\t' : '\\';
      if (what === '$') return '$';
      if (what === '&') return match[0];
      if (name !== undefined) return match.groups?.[name] ?? all;
      let group = Number(what);
      // "$10" with only one group is "$1" then "0", as in String.prototype.replace.
      if (group >= match.length && what.length === 2) {
        group = Number(what[0]);
        if (group < match.length) return (match[group] ?? '') + what[1];
      }
      if (group >= match.length) return all;
      return match[group] ?? '';
    },
  );
}

/** The match of `regex` (global) that starts exactly at `start` in `line` and ends at `end`, or null. */
export function matchAt(regex: RegExp, line: string, start: number, end: number): RegExpExecArray | null {
  regex.lastIndex = start;
  const match = regex.exec(line);
  return match && match.index === start && match.index + match[0].length === end ? match : null;
}

/** What one match turns into. */
export function replacementOf(match: RegExpExecArray, replacement: string, isRegex: boolean): string {
  return isRegex ? expandReplacement(match, replacement) : replacement;
}

export interface ReplacedText {
  text: string;
  /** Matches replaced. */
  replaced: number;
  /** Matches that are no longer where the search saw them (the line changed since): left alone. */
  stale: number;
}

/**
 * Replaces the given matches in a text (a file, or one notebook cell's source) whose lines the search numbered.
 * A match is replaced only where its line still reads as the search previewed it and the query still matches
 * exactly there: nothing the operator did not see is changed.
 */
export function replaceMatches(
  text: string,
  targets: readonly ReplaceTarget[],
  regex: RegExp,
  replacement: string,
  isRegex: boolean,
): ReplacedText {
  const lines = text.split('\n');
  const byLine = new Map<number, ReplaceTarget[]>();
  for (const target of targets) byLine.set(target.line, [...(byLine.get(target.line) ?? []), target]);
  let replaced = 0;
  let stale = 0;
  for (const [lineNumber, onLine] of byLine) {
    const raw = lines[lineNumber - 1];
    if (raw === undefined) {
      stale += onLine.length;
      continue;
    }
    const cr = raw.endsWith('\r');
    const line = cr ? raw.slice(0, -1) : raw;
    // Every check is made on the line as it was; the splices then run right to left so offsets hold.
    const edits: { start: number; end: number; text: string }[] = [];
    for (const target of onLine) {
      const seen = line.slice(target.previewStart, target.previewStart + target.preview.length) === target.preview;
      const match = seen ? matchAt(regex, line, target.start, target.end) : null;
      if (!match || edits.some((e) => e.start < target.end && target.start < e.end)) stale++;
      else edits.push({ start: target.start, end: target.end, text: replacementOf(match, replacement, isRegex) });
    }
    edits.sort((a, b) => b.start - a.start);
    let next = line;
    for (const edit of edits) next = next.slice(0, edit.start) + edit.text + next.slice(edit.end);
    lines[lineNumber - 1] = cr ? `${next}\r` : next;
    replaced += edits.length;
  }
  return { text: lines.join('\n'), replaced, stale };
}

/** The search's query as a global RegExp, as both engines read it; throws SyntaxError for a bad pattern. */
export function searchRegExp(query: {
  pattern: string;
  isRegex?: boolean;
  matchCase?: boolean;
  wholeWord?: boolean;
}): RegExp {
  let source = query.isRegex ? query.pattern : query.pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  if (query.wholeWord) source = `\\b(?:${source})\\b`;
  return new RegExp(source, query.matchCase ? 'g' : 'gi');
}

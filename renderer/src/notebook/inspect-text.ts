import { stripAnsi } from './ansi';

/*
 * Reading what IPython's inspect_request answers (the `obj?` page) and where a call's arguments are, for
 * signature help. Pure functions, so the editor's parts stay thin.
 */

/** The page's sections ("Signature", "Docstring", "Type", ...) in order, ANSI colours removed. */
export function inspectSections(textPlain: string): { name: string; body: string }[] {
  const sections: { name: string; body: string }[] = [];
  for (const line of stripAnsi(textPlain).split('\n')) {
    const header = /^([A-Z][A-Za-z ]{1,30}):(?: +(.*))?$/.exec(line);
    if (header) sections.push({ name: header[1], body: header[2] ?? '' });
    else if (sections.length) {
      const last = sections[sections.length - 1];
      last.body = last.body ? `${last.body}\n${line}` : line;
    }
  }
  for (const s of sections) s.body = s.body.replace(/\s+$/, '');
  return sections;
}

/** The call signature the page shows ("len(obj, /)"), or null. */
export function signatureOf(textPlain: string): { label: string; doc: string } | null {
  const sections = inspectSections(textPlain);
  const signature = sections.find((s) => s.name === 'Signature' || s.name === 'Init signature');
  if (!signature?.body.trim()) return null;
  const doc = sections.find(
    (s) => s.name === 'Docstring' || s.name === 'Class docstring' || s.name === 'Init docstring',
  );
  // A signature can wrap over lines; it reads as one.
  return { label: signature.body.replace(/\s*\n\s*/g, ' ').trim(), doc: doc?.body ?? '' };
}

/** The parameters of `label` ("f(a, b=(1, 2), *c)") as [start, end) offsets into it, top-level commas only. */
export function parameterRanges(label: string): [number, number][] {
  const open = label.indexOf('(');
  if (open < 0) return [];
  const ranges: [number, number][] = [];
  let depth = 0;
  let start = open + 1;
  for (let i = open + 1; i < label.length; i++) {
    const ch = label[i];
    if ('([{'.includes(ch)) depth++;
    else if (')]}'.includes(ch)) {
      if (depth === 0) {
        if (label.slice(start, i).trim()) ranges.push(trimmed(label, start, i));
        break;
      }
      depth--;
    } else if (ch === ',' && depth === 0) {
      ranges.push(trimmed(label, start, i));
      start = i + 1;
    }
  }
  return ranges;
}

function trimmed(text: string, start: number, end: number): [number, number] {
  while (start < end && text[start] === ' ') start++;
  while (end > start && text[end - 1] === ' ') end--;
  return [start, end];
}

/**
 * The call the cursor is in: where its callee's name ends (where to inspect) and which argument the cursor
 * is at. Brackets and strings before the cursor are skipped; null when the cursor is in no call.
 */
export function callAt(code: string, cursor: number): { nameEnd: number; argument: number } | null {
  let depth = 0;
  let commas = 0;
  const scanned = blankStrings(code.slice(0, cursor));
  for (let i = scanned.length - 1; i >= 0; i--) {
    const ch = scanned[i];
    if (')]}'.includes(ch)) depth++;
    else if ('[{'.includes(ch)) {
      if (depth === 0) return null;
      depth--;
    } else if (ch === '(') {
      if (depth > 0) {
        depth--;
        continue;
      }
      let nameEnd = i;
      while (nameEnd > 0 && scanned[nameEnd - 1] === ' ') nameEnd--;
      return /[\w)\]]$/.test(scanned.slice(0, nameEnd)) ? { nameEnd, argument: commas } : null;
    } else if (ch === ',' && depth === 0) commas++;
    else if (ch === '\n' && depth === 0 && /^\S/.test(scanned.slice(i + 1))) return null;
  }
  return null;
}

/** `code` with the insides of string literals blanked out (same length), so their brackets and commas don't count. */
function blankStrings(code: string): string {
  return code.replace(
    /("""[\s\S]*?(?:"""|$)|'''[\s\S]*?(?:'''|$)|"(?:\\.|[^"\\\n])*(?:"|$)|'(?:\\.|[^'\\\n])*(?:'|$)|#[^\n]*)/g,
    (s) => s.replace(/[^\n]/g, '_'),
  );
}

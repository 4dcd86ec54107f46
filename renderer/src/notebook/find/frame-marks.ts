import { useContext, useMemo } from 'react';
import { useStore } from '../../base';
import { FindContext } from './find-context';
import { findRegExp } from './find-model';

/**
 * Find's marks in an HTML output. Its frame is sandboxed (no script, opaque origin): Kiln never reaches into
 * it, so the marks go into the HTML it is given, parsed with DOMParser in the page (which runs nothing).
 */

/** The HTML with each match of `regex` in its text wrapped in a <mark>; the `current`-th one stands out. */
export function markHtml(html: string, regex: RegExp, current: number | null): string {
  const doc = new DOMParser().parseFromString(html, 'text/html');
  const walker = doc.createTreeWalker(doc.body, NodeFilter.SHOW_TEXT);
  const texts: Text[] = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode())
    if (!node.parentElement?.closest('script, style, template')) texts.push(node as Text);
  let n = 0;
  for (const text of texts) {
    const value = text.data;
    const spans: [number, number][] = [];
    regex.lastIndex = 0;
    for (let m = regex.exec(value); m; m = regex.exec(value)) {
      if (!m[0].length) regex.lastIndex++;
      else spans.push([m.index, m.index + m[0].length]);
    }
    // Split from the end so earlier offsets stay valid.
    for (let i = spans.length - 1; i >= 0; i--) {
      const [start, end] = spans[i];
      const match = text.splitText(start);
      match.splitText(end - start);
      const mark = doc.createElement('mark');
      mark.className = n + i === current ? 'kiln-find kiln-find-current' : 'kiln-find';
      match.replaceWith(mark);
      mark.append(match);
    }
    n += spans.length;
  }
  return doc.body.innerHTML;
}

/** The marks' look inside the frame (it has none of Kiln's styles). */
export const FRAME_MARK_STYLE =
  'mark.kiln-find{background:rgba(234,92,0,.3);color:inherit}mark.kiln-find-current{background:rgba(255,200,0,.75);outline:1px solid #c27d00}';

const NONE = { subscribe: () => () => undefined, getState: () => null };

/**
 * What the find bar asks of one HTML output: the pattern while outputs are searched, and which of its matches is
 * current. A string, so the frame redraws only when its marks change.
 */
export function useFrameFind(
  cellId: string | undefined,
  output: number,
): { regex: RegExp; current: number | null } | null {
  const find = useContext(FindContext);
  const key = useStore(find?.now ?? NONE, (s) => {
    if (!s?.open || !s.query.inOutputs || !cellId) return '';
    const mine = (s.byCell.get(cellId) ?? []).filter((m) => m.area === 'output' && m.output === output);
    if (!mine.length) return '';
    const current = s.current === null ? null : s.matches[s.current];
    const nth =
      current?.cellId === cellId ? mine.findIndex((m) => m.start === current.start && m.output === current.output) : -1;
    return JSON.stringify([s.query.text, s.query.matchCase, s.query.wholeWord, s.query.regex, nth]);
  });
  return useMemo(() => {
    if (!key) return null;
    const [text, matchCase, wholeWord, regexMode, nth] = JSON.parse(key) as [string, boolean, boolean, boolean, number];
    const regex = findRegExp({ text, matchCase, wholeWord, regex: regexMode, inOutputs: true });
    return regex instanceof RegExp ? { regex, current: nth < 0 ? null : nth } : null;
  }, [key]);
}

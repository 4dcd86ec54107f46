import { useContext, useEffect, type RefObject } from 'react';
import { useStore } from '../../base';
import { FindContext, useCellFind } from './find-context';
import { findRegExp, type FindQuery } from './find-model';

/**
 * Highlights in what a cell shows as HTML (rendered markdown, text outputs), drawn with the CSS Custom
 * Highlight API over the text as shown: no DOM is rewritten, so the renderers stay as they are. The current
 * match, when it is in an output, has a highlight of its own.
 */
const HIGHLIGHT = 'nb-find';
const CURRENT = 'nb-find-current';

function registry(name: string): Highlight | null {
  if (typeof CSS === 'undefined' || !('highlights' in CSS) || typeof Highlight === 'undefined') return null;
  let highlight = CSS.highlights.get(name);
  if (!highlight) {
    highlight = new Highlight();
    // The current match paints over the others.
    if (name === CURRENT) highlight.priority = 1;
    CSS.highlights.set(name, highlight);
  }
  return highlight;
}

/**
 * Adds `ranges` to the page's highlight `name`; returns what takes them out again. The effect that drew them owns
 * them, so no list of them outlives it (and two windows' notebooks in one page never take out each other's).
 */
function showRanges(ranges: Range[], name = HIGHLIGHT): () => void {
  const highlight = registry(name);
  if (!highlight || !ranges.length) return () => undefined;
  for (const range of ranges) highlight.add(range);
  return () => {
    for (const range of ranges) highlight.delete(range);
  };
}

/** Text that is not shown as such: KaTeX's MathML copy (for screen readers) and the outputs' own buttons. */
const NOT_SHOWN = '.katex-mathml, button, [data-find-skip]';

/** Ranges of the regex's matches in each text node under `root` (a match does not cross elements). */
function rangesIn(root: Element, regex: RegExp, skip: (node: Node) => boolean): Range[] {
  const ranges: Range[] = [];
  const walker = root.ownerDocument.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (skip(node) || node.parentElement?.closest(NOT_SHOWN)) continue;
    const text = node.nodeValue ?? '';
    regex.lastIndex = 0;
    for (let m = regex.exec(text); m; m = regex.exec(text)) {
      if (!m[0].length) {
        regex.lastIndex++;
        continue;
      }
      const range = root.ownerDocument.createRange();
      range.setStart(node, m.index);
      range.setEnd(node, m.index + m[0].length);
      ranges.push(range);
    }
  }
  return ranges;
}

function openFoldedBranches(node: Node, root: Element): void {
  for (let el = node.parentElement; el && el !== root; el = el.parentElement)
    if (el instanceof HTMLDetailsElement && !el.open) el.open = true;
}

const NONE = { subscribe: () => () => undefined, getState: () => null };

const sameQuery = (a: FindQuery | null, b: FindQuery | null) =>
  a === b ||
  (a !== null &&
    b !== null &&
    a.text === b.text &&
    a.matchCase === b.matchCase &&
    a.wholeWord === b.wholeWord &&
    a.regex === b.regex &&
    a.inOutputs === b.inOutputs);

/**
 * Marks the find bar's matches in a cell's rendered part: its rendered markdown when the cell's source matches,
 * its outputs when outputs are searched. `version` changes when what is shown there changes.
 */
export function DomHighlights({
  cellId,
  target,
  version,
}: {
  cellId: string;
  target: RefObject<HTMLElement | null>;
  version: unknown;
}) {
  const find = useContext(FindContext);
  const query = useStore(find?.later ?? NONE, (s) => (s?.open && s.byCell.has(cellId) ? s.query : null), sameQuery);
  const { matches, current } = useCellFind(cellId);
  useEffect(() => {
    const root = target.current;
    const regex = query ? findRegExp(query) : null;
    const output = current?.area === 'output' ? current.output : undefined;
    const element = output === undefined ? null : root?.querySelectorAll('.nb-output')[output];
    if (!element || !(regex instanceof RegExp)) return;
    // The current match is the n-th of its output: the n-th range of that output's text as drawn.
    const nth = matches
      .filter((m) => m.area === 'output' && m.output === output)
      .findIndex((m) => m.start === current!.start);
    const range = rangesIn(element, regex, () => false)[nth];
    const hide = showRanges(range ? [range] : [], CURRENT);
    range?.startContainer.parentElement?.scrollIntoView({ block: 'nearest' });
    return hide;
  }, [target, query, matches, current, version]);
  useEffect(() => {
    const root = target.current;
    const regex = query ? findRegExp(query) : null;
    if (!root || !(regex instanceof RegExp)) return;
    // Rendered markdown always (its source matched); outputs only when they are searched.
    const skip = (node: Node) => !query!.inOutputs && !node.parentElement?.closest('.nb-markdown');
    const ranges = rangesIn(root, regex, skip);
    // A match in a folded branch of a JSON output opens it, as the browser's find-in-page does.
    if (query!.inOutputs) for (const range of ranges) openFoldedBranches(range.startContainer, root);
    return showRanges(ranges);
  }, [target, query, version]);
  return null;
}

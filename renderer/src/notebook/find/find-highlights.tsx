import { memo, useEffect, useRef } from 'react';
import type { monaco } from '../../editor';
import type { FindMatch } from './find-model';

/** Monaco decorations for a cell's source matches; the current one stands out (as VS Code's find does). */
export function findDecorations(
  model: monaco.editor.ITextModel,
  matches: readonly FindMatch[],
  current: FindMatch | null,
): monaco.editor.IModelDeltaDecoration[] {
  return matches
    .filter((m) => m.area === 'source')
    .map((m) => {
      const from = model.getPositionAt(m.start);
      const to = model.getPositionAt(m.end);
      const isCurrent = current !== null && current.start === m.start && current.area === m.area;
      return {
        range: {
          startLineNumber: from.lineNumber,
          startColumn: from.column,
          endLineNumber: to.lineNumber,
          endColumn: to.column,
        },
        options: {
          className: isCurrent ? 'nb-find-current' : 'nb-find-match',
          stickiness: 1,
        },
      };
    });
}

/** Scrolls the notebook so a position of a cell's editor shows: the editor is as tall as its text, the list scrolls. */
export function scrollToFindMatch(
  editor: monaco.editor.ICodeEditor,
  host: HTMLElement | null,
  position: monaco.IPosition,
): void {
  const scroller = host?.closest('.nb-cells');
  if (!host || !scroller) return;
  const top = host.getBoundingClientRect().top + editor.getTopForPosition(position.lineNumber, position.column);
  const box = scroller.getBoundingClientRect();
  if (top < box.top + 20 || top > box.bottom - 40) scroller.scrollTop += top - (box.top + box.height / 2);
}

/** A source shown before its editor exists, with the find bar's matches marked in it. */
export const StaticSource = memo(function StaticSource({
  source,
  matches,
  current,
}: {
  source: string;
  matches: readonly FindMatch[] | undefined;
  current: FindMatch | null;
}) {
  const currentRef = useRef<HTMLElement>(null);
  useEffect(() => {
    currentRef.current?.scrollIntoView({ block: 'center' });
  }, [current]);
  const spans = (matches ?? []).filter((m) => m.area === 'source');
  if (!spans.length) return <>{source || ' '}</>;
  const parts: React.ReactNode[] = [];
  let from = 0;
  for (const m of spans) {
    if (m.start < from) continue;
    parts.push(source.slice(from, m.start));
    const isCurrent = current !== null && current.start === m.start && current.area === 'source';
    parts.push(
      <mark
        key={m.start}
        ref={isCurrent ? currentRef : undefined}
        className={isCurrent ? 'nb-find-current' : 'nb-find-match'}
      >
        {source.slice(m.start, m.end)}
      </mark>,
    );
    from = m.end;
  }
  parts.push(source.slice(from));
  return <>{parts}</>;
});

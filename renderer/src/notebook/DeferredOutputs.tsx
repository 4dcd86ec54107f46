import { useEffect, useRef, useState } from 'react';
import { Emitter } from '../../../shared/base/event';
import type { NotebookOutput } from '../../../shared/contract';
import { joinMultiline } from '../../../shared/contract';
import { countLines } from './console-text';
import { observeNearView } from './near-view';
import { OutputList, type OutputListProps } from './Outputs';

/** Cells this close to the top are made with their outputs at once: the first screen paints in one go. */
export const EAGER_CELLS = 20;
/** How far beyond the visible cells outputs are made ahead of scrolling. */
const AHEAD = '1500px 0px';
const LINE_PX = 18;
/** What a long text shows at most before "Show more" (Outputs.tsx), in lines. */
const SHOWN_LINES = 501;

// process-wide: printing prints the whole page, every window's notebooks in it.
const makeAll = new Emitter<void>();

/** Every output not made yet is made now: the notebook is being printed whole (Export as PDF). */
export function makeAllOutputs(): void {
  makeAll.fire();
}

/**
 * A cell's outputs, made once the cell comes near the visible part of the notebook: a notebook of 1,000
 * cells with 20 MB of outputs paints its first cells without first building every image and text below.
 * Until then a blank of about their height keeps the scroll bar honest. Once made they stay.
 */
export function DeferredOutputs({ eager, ...props }: OutputListProps & { eager: boolean }) {
  const [near, setNear] = useState(eager);
  const blank = useRef<HTMLDivElement>(null);
  const waiting = !near && props.outputs.length > 0;
  useEffect(() => {
    if (!waiting) return;
    const el = blank.current!;
    const unobserve = observeNearView(el, { root: el.closest('.nb-cells'), margin: AHEAD }, (isNear) => {
      if (isNear) setNear(true);
    });
    const printing = makeAll.event(() => setNear(true));
    return () => {
      unobserve();
      printing.dispose();
    };
  }, [waiting]);
  if (!waiting) return <OutputList {...props} />;
  return <div ref={blank} className="nb-outputs-pending" style={{ height: estimatedHeight(props.outputs) }} />;
}

/** Roughly the height the outputs will take, so the notebook's length barely changes when they are made. */
export function estimatedHeight(outputs: NotebookOutput[]): number {
  let px = 0;
  for (const output of outputs) {
    const text = output.text ?? (output.data as Record<string, unknown> | undefined)?.['text/plain'];
    const images = Object.keys((output.data as Record<string, unknown> | undefined) ?? {}).some((mime) =>
      mime.startsWith('image/'),
    );
    if (images) px += 250;
    else if (typeof text === 'string' || Array.isArray(text))
      px += Math.min(SHOWN_LINES, countLines(joinMultiline(text as string | string[]))) * LINE_PX;
    else px += 2 * LINE_PX;
  }
  return px;
}

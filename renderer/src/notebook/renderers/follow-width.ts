/**
 * Calls `onWidth` with the element's width whenever it changes, however it changed: the window, a side panel,
 * the cell. Window resize events (what Vega and Plotly listen to on their own) miss all but the first.
 * Once per frame at most; a hidden output (width 0) keeps its chart as it was.
 */
export function followWidth(element: HTMLElement, onWidth: (width: number) => void): () => void {
  let last = element.clientWidth;
  let frame: number | null = null;
  const observer = new ResizeObserver(() => {
    if (frame !== null) return;
    frame = requestAnimationFrame(() => {
      frame = null;
      const width = element.clientWidth;
      if (width === last || width === 0) return;
      last = width;
      onWidth(width);
    });
  });
  observer.observe(element);
  return () => {
    observer.disconnect();
    if (frame !== null) cancelAnimationFrame(frame);
  };
}

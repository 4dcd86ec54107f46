/**
 * "Diff painted", the same test on both sides of the benchmark: the diff editor's change decorations
 * are in the DOM of a side-by-side diff editor, then the next animation frame (the frame that shows
 * them) has started.
 * Runs in the browser; resolves with performance.now() at that frame.
 */
export function waitForDiffPaint(root: Element): Promise<number> {
  const painted = () =>
    root.querySelector(
      '.monaco-diff-editor.side-by-side .editor.original .line-delete, .monaco-diff-editor.side-by-side .editor.original .char-delete',
    );
  return new Promise((resolve) => {
    const done = () => requestAnimationFrame(() => resolve(performance.now()));
    if (painted()) return done();
    const observer = new MutationObserver(() => {
      if (!painted()) return;
      observer.disconnect();
      done();
    });
    observer.observe(root, { childList: true, subtree: true, attributes: true, attributeFilter: ['class'] });
  });
}

import { useEffect, useRef, useState } from 'react';
import { monaco } from '../editor';
import { useColorScheme } from '../ui';

export interface CellSourceDiffProps {
  original: string;
  modified: string;
  /** Monaco's language id: the notebook's for code cells, markdown, plaintext for raw. */
  language: string;
  sideBySide: boolean;
  originalLabel: string;
  modifiedLabel: string;
}

/** Lines a cell's diff shows at most before it scrolls inside. */
const MAX_LINES = 40;
const LINE_HEIGHT = 19;

/**
 * A cell's source diff made once it comes near the screen (then kept): a review of 50 changed cells in a long
 * notebook makes the few diff editors it shows, not 50. Until then a box of the height it will about have.
 */
export function LazyCellSourceDiff(props: CellSourceDiffProps) {
  const box = useRef<HTMLDivElement>(null);
  const [near, setNear] = useState(false);
  useEffect(() => {
    if (near || !box.current) return;
    const root = box.current.closest('.nbd-cells');
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((e) => e.isIntersecting)) setNear(true);
      },
      { root, rootMargin: '800px 0px' },
    );
    observer.observe(box.current);
    return () => observer.disconnect();
  }, [near]);
  if (near) return <CellSourceDiff {...props} />;
  const lines = Math.max(props.original.split('\n').length, props.modified.split('\n').length);
  return <div ref={box} className="nbd-source-diff" style={{ height: Math.min(lines, MAX_LINES) * LINE_HEIGHT + 8 }} />;
}

/**
 * One cell's source as a read-only Monaco diff, as tall as its content (a cell among cells, not a pane):
 * the taller of the two sides, deleted lines included when inline.
 */
export function CellSourceDiff({
  original,
  modified,
  language,
  sideBySide,
  originalLabel,
  modifiedLabel,
}: CellSourceDiffProps) {
  const host = useRef<HTMLDivElement>(null);
  const diff = useRef<monaco.editor.IStandaloneDiffEditor | null>(null);
  const lines = Math.max(original.split('\n').length, modified.split('\n').length);
  const [height, setHeight] = useState(Math.min(lines, MAX_LINES) * LINE_HEIGHT + 8);
  const scheme = useColorScheme();

  useEffect(() => {
    const editor = monaco.editor.createDiffEditor(host.current!, {
      automaticLayout: true,
      readOnly: true,
      originalEditable: false,
      renderSideBySide: sideBySide,
      originalAriaLabel: originalLabel,
      modifiedAriaLabel: modifiedLabel,
      useInlineViewWhenSpaceIsLimited: false,
      fontSize: 13,
      lineHeight: LINE_HEIGHT,
      scrollBeyondLastLine: false,
      minimap: { enabled: false },
      renderOverviewRuler: false,
      overviewRulerLanes: 0,
      lineNumbersMinChars: 3,
      folding: false,
      scrollbar: { alwaysConsumeMouseWheel: false, vertical: 'auto' },
      // F7 is the view's (next change among cells), not the accessible diff viewer's.
      accessibilityVerbose: false,
    });
    const originalModel = monaco.editor.createModel(original, language);
    const modifiedModel = monaco.editor.createModel(modified, language);
    editor.setModel({ original: originalModel, modified: modifiedModel });
    const fit = () => {
      const tallest = Math.max(
        editor.getOriginalEditor().getContentHeight(),
        editor.getModifiedEditor().getContentHeight(),
      );
      setHeight(Math.min(tallest, MAX_LINES * LINE_HEIGHT) + 8);
    };
    const subs = [
      editor.getOriginalEditor().onDidContentSizeChange(fit),
      editor.getModifiedEditor().onDidContentSizeChange(fit),
      editor.onDidUpdateDiff(fit),
    ];
    diff.current = editor;
    return () => {
      for (const sub of subs) sub.dispose();
      editor.dispose();
      originalModel.dispose();
      modifiedModel.dispose();
      diff.current = null;
    };
    // Made once per cell: the view keys cells by change, and a new answer remounts them.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  // Switching inline / side by side resets the sides' names: both are set together.
  useEffect(() => {
    diff.current?.updateOptions({ renderSideBySide: sideBySide });
    diff.current?.getOriginalEditor().updateOptions({ ariaLabel: originalLabel });
    diff.current?.getModifiedEditor().updateOptions({ ariaLabel: modifiedLabel });
  }, [sideBySide, originalLabel, modifiedLabel]);

  useEffect(() => monaco.editor.setTheme(scheme === 'dark' ? 'vs-dark' : 'vs'), [scheme]);

  return <div ref={host} className="nbd-source-diff" style={{ height }} data-testid="cell-source-diff" />;
}

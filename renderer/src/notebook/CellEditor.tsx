import { useEffect, useRef, useState } from 'react';
import { cellEditorContributions } from './cell-contributions';
import { useBridge } from '../base';
import { attachTreePathDrop, monaco, openIfFile, useOpenFilesStore } from '../editor';
import { useTreeDragInFlight } from '../drag-out';
import { overflowWidgetsNode, trackOverflowOwner } from './overflow-widgets';
import { attachKernelAssist, type KernelAssistSource } from './kernel-assist';
import { attachCellLanguage } from './language';
import { useCellFind } from './find/find-context';
import { findDecorations, scrollToFindMatch, StaticSource } from './find/find-highlights';
import { observeWidth } from './cell-width';
import { makeEditorSoon } from './editor-queue';
import { observeNearView } from './near-view';
import type { EditorHandle, EditorKey } from './types';

export interface CellEditorProps {
  cellId: string;
  source: string;
  /** Bumped when the document was replaced from outside: the editor takes `source` again. */
  generation: number;
  language: string;
  onChange: (source: string) => void;
  onKey: (key: EditorKey) => void;
  onFocus: () => void;
  /** Registers the editor so the notebook can focus it (edit mode). */
  register: (cellId: string, editor: EditorHandle | null) => void;
  label: string;
  /** Line numbers shown (JupyterLab's L / Shift+L). */
  lineNumbers?: boolean;
  /** The notebook's kernel, for completion and inspection (code cells). */
  assist?: KernelAssistSource;
}

const LINE_HEIGHT = 19;

/**
 * Every cell editor's options, one object for all: standalone Monaco copies the options of each editor made into
 * its one global configuration, and each change there re-reads every model's options (so a fresh object, or a
 * per-cell value, made each new editor cost as much as all the editors before it).
 */
const EDITOR_OPTIONS: monaco.editor.IStandaloneEditorConstructionOptions = {
  fontSize: 13,
  lineHeight: LINE_HEIGHT,
  minimap: { enabled: false },
  scrollBeyondLastLine: false,
  glyphMargin: false,
  folding: false,
  lineDecorationsWidth: 8,
  renderLineHighlight: 'none',
  overviewRulerLanes: 0,
  hideCursorInOverviewRuler: true,
  overviewRulerBorder: false,
  wordWrap: 'on',
  wrappingStrategy: 'simple',
  padding: { top: 5, bottom: 5 },
  scrollbar: { vertical: 'hidden', horizontal: 'hidden', alwaysConsumeMouseWheel: false, handleMouseWheel: false },
  fixedOverflowWidgets: true,
  automaticLayout: false,
  contextmenu: true,
  tabSize: 4,
  insertSpaces: true,
  occurrencesHighlight: 'off',
  selectionHighlight: false,
  renderWhitespace: 'none',
  stickyScroll: { enabled: false },
  // No compositor layers of its own per editor (Monaco's translate3d hints): a notebook's dozens of live editors
  // made every frame after a move update that many layers.
  disableLayerHinting: true,
};

/**
 * Names a cell's editor ("Cell 3 code") on its text box itself, from the start and again whenever the cell's number
 * changes. Not through Monaco's `ariaLabel` option: standalone Monaco copies each editor's options into its one
 * global configuration, so a per-cell name (made, or changed on every move) re-read every model's options (see
 * EDITOR_OPTIONS). Monaco writes its own name back on any change of options (line numbers, a screen reader found):
 * the cell's is put back at once.
 */
function nameEditor(
  editor: monaco.editor.IStandaloneCodeEditor,
  name: () => string,
): { rename: () => void; dispose: () => void } {
  const box = editor.getDomNode()?.querySelector<HTMLElement>('textarea, [role="textbox"]');
  const rename = () => {
    if (box && box.getAttribute('aria-label') !== name()) box.setAttribute('aria-label', name());
  };
  rename();
  const observer = new MutationObserver(rename);
  if (box) observer.observe(box, { attributes: true, attributeFilter: ['aria-label'] });
  return { rename, dispose: () => observer.disconnect() };
}

/**
 * One cell's Monaco: as tall as its text (no inner scrolling), wheel events pass to the notebook,
 * and JupyterLab's run keys are taken before Monaco sees them. Monaco is created when the cell comes near
 * the viewport (or is focused): a notebook of hundreds of cells opens at once, showing plain text meanwhile.
 */
export function CellEditor({
  cellId,
  source,
  generation,
  language,
  onChange,
  onKey,
  onFocus,
  register,
  label,
  lineNumbers = false,
  assist,
}: CellEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const openFiles = useOpenFilesStore();
  const bridge = useBridge();
  const editorRef = useRef<monaco.editor.IStandaloneCodeEditor | null>(null);
  const handlers = useRef({ onChange, onKey, onFocus });
  handlers.current = { onChange, onKey, onFocus };
  const applying = useRef(false);
  // The cell's number changes as cells move or come and go; its editor is renamed (see nameEditor).
  const labelRef = useRef(label);
  labelRef.current = label;
  const rename = useRef<(() => void) | null>(null);
  const [live, setLive] = useState(false);
  // The host's width as the last frame laid it out (cell-width.ts). The editor is made and laid out with it:
  // reading clientWidth instead forced a layout of the whole notebook for every cell editor made, seconds in all
  // when a notebook full of formulas and charts opens.
  const hostWidth = useRef<number | null>(null);
  const relayout = useRef<(() => void) | null>(null);
  // A cell whose editor does not exist yet is off screen: its marks follow once the first highlights painted.
  const { matches: findMatches, current: anyCurrent } = useCellFind(cellId, live ? 'now' : 'later');
  const findCurrent = anyCurrent?.area === 'source' ? anyCurrent : null;
  const focusWhenLive = useRef(false);
  const selectWhenLive = useRef<{ line: number; start: number; end: number } | null>(null);
  const findDecorationsRef = useRef<monaco.editor.IEditorDecorationsCollection | null>(null);

  useEffect(() => {
    const handle: EditorHandle = {
      focus: () => {
        if (editorRef.current) editorRef.current.focus();
        else {
          focusWhenLive.current = true;
          setLive(true);
        }
      },
      hasTextFocus: () => editorRef.current?.hasTextFocus() ?? false,
      cursorOffsets: () => {
        const editor = editorRef.current;
        const model = editor?.getModel();
        if (!editor || !model) return [];
        return (editor.getSelections() ?? []).flatMap((s) => {
          const start = model.getOffsetAt(s.getStartPosition());
          const end = model.getOffsetAt(s.getEndPosition());
          return start === end ? [start] : [start, end];
        });
      },
      select: (target) => {
        const editor = editorRef.current;
        if (!editor) {
          selectWhenLive.current = target;
          setLive(true);
          return;
        }
        const selection = new monaco.Selection(target.line, target.start + 1, target.line, target.end + 1);
        editor.setSelection(selection);
        editor.focus();
        scrollToFindMatch(editor, host.current, selection.getStartPosition());
      },
    };
    register(cellId, handle);
    return () => register(cellId, null);
  }, [cellId, register]);

  useEffect(
    () =>
      observeWidth(host.current!, (width) => {
        if (width === hostWidth.current) return;
        hostWidth.current = width;
        relayout.current?.();
      }),
    [],
  );

  useEffect(() => {
    if (live) return;
    const el = host.current!;
    let cancel: (() => void) | null = null;
    const unobserve = observeNearView(el, { root: null, margin: '800px 0px' }, (near) => {
      if (near && !cancel) cancel = makeEditorSoon(() => setLive(true));
      else if (!near && cancel) {
        cancel();
        cancel = null;
      }
    });
    return () => {
      unobserve();
      cancel?.();
    };
  }, [live]);

  useEffect(() => {
    if (!live) return;
    const el = host.current!;
    const width = () => hostWidth.current ?? el.clientWidth;
    const model = monaco.editor.createModel(source, language);
    const editor = monaco.editor.create(el, {
      ...EDITOR_OPTIONS,
      model,
      lineNumbers: lineNumbers ? 'on' : 'off',
      lineNumbersMinChars: lineNumbers ? 3 : 0,
      overflowWidgetsDomNode: overflowWidgetsNode(),
      // Given, so Monaco does not measure the host either.
      dimension: { width: width(), height: LINE_HEIGHT + 10 },
    });
    editorRef.current = editor;

    const layout = () => {
      const height = Math.max(editor.getContentHeight(), LINE_HEIGHT + 10);
      el.style.height = `${height}px`;
      editor.layout({ width: width(), height });
    };
    layout();
    relayout.current = layout;
    const sizeSub = editor.onDidContentSizeChange(layout);

    const changeSub = editor.onDidChangeModelContent(() => {
      if (!applying.current) handlers.current.onChange(model.getValue());
    });
    const naming = nameEditor(editor, () => labelRef.current);
    rename.current = naming.rename;
    const focusSub = editor.onDidFocusEditorText(() => handlers.current.onFocus());
    // First, so its Tab, Shift+Tab and Escape (closing its panel) come before the notebook's keys.
    const detachAssist = assist ? attachKernelAssist(editor, assist) : null;
    // A tree row dropped with Shift: its path relative to the notebook (the document shown, so the active one).
    const detachPathDrop = attachTreePathDrop(editor, el, {
      fileOf: () => openFiles.getState().active,
      open: openIfFile(bridge, (target) => void openFiles.open(target)),
      treeDrag: useTreeDragInFlight.of(bridge),
    });
    const detachLanguage = assist?.language ? attachCellLanguage(editor, cellId, assist.language) : null;
    const untrackOwner = trackOverflowOwner(editor);
    // Code cells only: what features above the notebook attach (the debugger's breakpoints and current line).
    const detachContributions = assist
      ? cellEditorContributions().map((attach) =>
          attach(editor, { bridge, cellId, notebookPath: openFiles.getState().active, host: el }),
        )
      : [];
    const keySub = editor.onKeyDown((e) => {
      if (e.browserEvent.defaultPrevented) return;
      const suggesting = Boolean(el.ownerDocument.querySelector('.suggest-widget.visible'));
      let key: EditorKey | null = null;
      if (e.keyCode === monaco.KeyCode.Enter && e.shiftKey && !e.ctrlKey && !e.metaKey && !e.altKey)
        key = 'run-advance';
      else if (e.keyCode === monaco.KeyCode.Enter && (e.ctrlKey || e.metaKey) && !e.shiftKey && !e.altKey) key = 'run';
      else if (e.keyCode === monaco.KeyCode.Enter && e.altKey && !e.ctrlKey && !e.metaKey) key = 'run-insert';
      else if (e.keyCode === monaco.KeyCode.Escape && !suggesting) key = 'escape';
      else if (e.keyCode === monaco.KeyCode.UpArrow && !e.shiftKey && !suggesting) {
        const pos = editor.getPosition();
        if (pos && pos.lineNumber === 1 && pos.column === 1) key = 'up-out';
      } else if (e.keyCode === monaco.KeyCode.DownArrow && !e.shiftKey && !suggesting) {
        const pos = editor.getPosition();
        const m = editor.getModel();
        if (pos && m && pos.lineNumber === m.getLineCount() && pos.column === m.getLineMaxColumn(pos.lineNumber))
          key = 'down-out';
      }
      if (!key) return;
      e.preventDefault();
      e.stopPropagation();
      handlers.current.onKey(key);
    });

    if (focusWhenLive.current) {
      focusWhenLive.current = false;
      editor.focus();
    }
    findDecorationsRef.current = editor.createDecorationsCollection();
    if (selectWhenLive.current) {
      const target = selectWhenLive.current;
      selectWhenLive.current = null;
      const selection = new monaco.Selection(target.line, target.start + 1, target.line, target.end + 1);
      editor.setSelection(selection);
      editor.focus();
      requestAnimationFrame(() => scrollToFindMatch(editor, el, selection.getStartPosition()));
    }

    return () => {
      sizeSub.dispose();
      changeSub.dispose();
      focusSub.dispose();
      keySub.dispose();
      detachAssist?.();
      detachPathDrop();
      detachLanguage?.();
      untrackOwner();
      for (const detach of detachContributions) detach();
      naming.dispose();
      rename.current = null;
      relayout.current = null;
      editor.dispose();
      model.dispose();
      editorRef.current = null;
      findDecorationsRef.current = null;
    };
    // The editor lives as long as the cell; text and language changes are applied below.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [cellId, live, assist]);

  useEffect(() => rename.current?.(), [label]);

  useEffect(() => {
    editorRef.current?.updateOptions({
      lineNumbers: lineNumbers ? 'on' : 'off',
      lineNumbersMinChars: lineNumbers ? 3 : 0,
    });
  }, [lineNumbers]);

  useEffect(() => {
    const model = editorRef.current?.getModel();
    if (model && model.getLanguageId() !== language) monaco.editor.setModelLanguage(model, language);
  }, [language]);

  // A reload or an agent edit replaced the text: take it (undoable), unless it is what the editor has.
  useEffect(() => {
    const model = editorRef.current?.getModel();
    if (!model || model.getValue() === source) return;
    applying.current = true;
    try {
      model.pushEditOperations([], [{ range: model.getFullModelRange(), text: source }], () => null);
    } finally {
      applying.current = false;
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps -- keyed on the generation: what is typed here is already in the model
  }, [generation]);

  // The find bar's highlights, and the current match scrolled to.
  useEffect(() => {
    const editor = editorRef.current;
    const model = editor?.getModel();
    if (!editor || !model) return;
    findDecorationsRef.current?.set(findDecorations(model, findMatches, findCurrent));
    if (findCurrent) scrollToFindMatch(editor, host.current, model.getPositionAt(findCurrent.start));
  }, [findMatches, findCurrent, live]);

  return (
    <div ref={host} className="nb-editor" data-language={language} data-live={live ? 'true' : undefined}>
      {!live && (
        <pre
          className="nb-editor-static"
          // Stands for the editor until Monaco is made: named as it will be; focused, it becomes the editor.
          role="textbox"
          aria-multiline="true"
          aria-label={label}
          tabIndex={-1}
          onFocus={() => {
            focusWhenLive.current = true;
            setLive(true);
          }}
          onMouseDown={(e) => {
            e.preventDefault();
            focusWhenLive.current = true;
            setLive(true);
          }}
        >
          <StaticSource source={source} matches={findMatches} current={findCurrent} />
        </pre>
      )}
    </div>
  );
}

import { useEffect, useRef } from 'react';
import type { GutterChange } from '../../../shared/contract';
import { useBridge } from '../base';
import { useColorScheme, usePrefs } from '../ui';
import { languageForPath, monaco } from './monaco-setup';
import { useOpenFile, useOpenFilesStore, type OpenFile } from './open-files';
import { useGitStateOf } from '../git';
import { menuItems } from '../commands';
import { useTreeDragInFlight } from '../drag-out';
import { attachTreePathDrop, openIfFile } from './path-drop';
import { useReveals } from './reveal';
import { useTextModels, type TextModels } from './text-models';
import { reportEdits } from './edit-handover';
import { EDITOR_OPTIONS, fileOptions } from './editor-options';
import { codeEditorContributions } from './code-editor-contributions';

const modelFor = (models: TextModels, file: OpenFile) => models.modelFor(file.path, file.buffer, file.large);

const GUTTER_TYPING_PAUSE_MS = 300;

/** Monaco for one text file of the open-files store: edits flow into the buffer, reloads flow back. */
export function CodeEditor({ path }: { path: string }) {
  const bridge = useBridge();
  const reveals = useReveals.of(bridge);
  const store = useOpenFilesStore();
  const textModels = useTextModels();
  const { prefs } = usePrefs();
  const scheme = useColorScheme();
  const host = useRef<HTMLDivElement>(null);
  const editorRef = useRef<monaco.editor.IStandaloneCodeEditor | null>(null);
  const gutter = useRef<monaco.editor.IEditorDecorationsCollection | null>(null);
  const applying = useRef(false);
  const file = useOpenFile(path);
  const minimap = prefs?.minimap ?? true;

  useEffect(() => {
    const editor = monaco.editor.create(host.current!, EDITOR_OPTIONS);
    editorRef.current = editor;
    gutter.current = editor.createDecorationsCollection();
    const stopReporting = reportEdits(editor, store, textModels, () => applying.current);
    // What other features add to the editor's context menu (the Timeline's "Open Timeline"), as VS Code's does.
    const contributed = menuItems('editor/context').map((item) =>
      editor.addAction({
        id: `kiln.${item.id}`,
        label: item.title,
        contextMenuGroupId: 'navigation',
        run: () => {
          const owner = textModels.pathOf(editor.getModel());
          if (owner) void item.run({ bridge, path: owner });
        },
      }),
    );
    const pathDrop = attachTreePathDrop(editor, host.current!, {
      fileOf: () => textModels.pathOf(editor.getModel()) ?? null,
      open: openIfFile(bridge, (target) => void store.open(target)),
      treeDrag: useTreeDragInFlight.of(bridge),
    });
    // What features above the editor attach (the debugger's breakpoints and paused line in a .py file).
    const detachContributions = codeEditorContributions().map((attach) =>
      attach(editor, { bridge, host: host.current!, pathOf: (model) => textModels.pathOf(model) ?? null }),
    );
    return () => {
      for (const detach of detachContributions) detach();
      pathDrop();
      const owner = textModels.pathOf(editor.getModel());
      if (owner) textModels.saveViewState(owner, editor.saveViewState());
      for (const action of contributed) action.dispose();
      stopReporting();
      editor.dispose();
      editorRef.current = null;
    };
  }, [bridge, store, textModels]);

  // Show this path's model, restoring where the operator was.
  const ready = file?.status === 'ready' && !file.binary;
  useEffect(() => {
    const editor = editorRef.current;
    if (!editor || !file || !ready) return;
    const previous = editor.getModel();
    const model = modelFor(textModels, file);
    if (previous === model) return;
    const prevOwner = textModels.pathOf(previous);
    if (prevOwner) textModels.saveViewState(prevOwner, editor.saveViewState());
    editor.setModel(model);
    const state = textModels.viewState(file.path);
    if (state) editor.restoreViewState(state);
    // Focus stays where the operator was (the tree keeps it after a click, as in VS Code).
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [path, ready]);

  // Find in Files asked to show a match: select it, centre it, and put the cursor there.
  useEffect(() => {
    if (!ready) return;
    const reveal = () => {
      const editor = editorRef.current;
      if (editor && textModels.pathOf(editor.getModel()) === path) reveals.revealPendingIn(path, editor);
    };
    reveal();
    return reveals.onRequest((requested) => requested === path && reveal());
  }, [path, ready, textModels, reveals]);

  // A reload or silent disk update replaced the buffer: push it into the model (undoable).
  useEffect(() => {
    if (!file || !ready) return;
    // Keys typed in the last moments are in the model, not yet in the buffer: hand them over first, or a move
    // (which changes `path`) would find the model "different" from the older buffer and put that back.
    store.flushEdits();
    const current = store.get(path);
    if (!current) return;
    const model = modelFor(textModels, current);
    if (model.getValue() === current.buffer) return;
    applying.current = true;
    try {
      model.pushEditOperations([], [{ range: model.getFullModelRange(), text: current.buffer }], () => null);
      model.pushStackElement();
    } finally {
      applying.current = false;
    }
    // Keyed on the revision (typing changes the buffer, not it) and the path: a tab reloaded while another showed
    // may have the same revision number as the tab shown before it.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [path, file?.revision, ready]);

  // Large files get Monaco's cheap mode; truncated ones are read-only.
  useEffect(() => {
    editorRef.current?.updateOptions(
      fileOptions({ large: Boolean(file?.large), truncated: Boolean(file?.truncated), minimap }),
    );
  }, [minimap, file?.large, file?.truncated]);

  useEffect(() => {
    monaco.editor.setTheme(scheme === 'dark' ? 'vs-dark' : 'vs');
  }, [scheme]);

  // The change gutter against HEAD: for the disk on load and save, for the buffer as it is edited
  // (after a pause in typing), and again when this file's git state, the branch or HEAD's commit moves (a checkout,
  // a commit, even one that leaves this file modified).
  const gitState = useGitStateOf(path);
  const buffer = file?.dirty ? file.buffer : undefined;
  useEffect(() => {
    if (!ready || file?.large) return;
    let live = true;
    const ask = () => {
      bridge.request('editor.gutter', { path, text: buffer }).then(
        (changes) => live && gutter.current?.set(changes.map(gutterDecoration)),
        () => live && gutter.current?.clear(),
      );
    };
    let timer = setTimeout(ask, buffer === undefined ? 0 : GUTTER_TYPING_PAUSE_MS);
    // Each key restarts the pause (its text reaches `buffer` a moment later), without a render of its own.
    const typing = store.onDidEdit((edited) => {
      if (edited !== path) return;
      clearTimeout(timer);
      timer = setTimeout(ask, GUTTER_TYPING_PAUSE_MS);
    });
    return () => {
      live = false;
      clearTimeout(timer);
      typing.dispose();
    };
  }, [bridge, store, path, ready, file?.large, file?.diskHash, buffer, gitState]);

  const language = file && ready ? (file.large ? 'plaintext' : languageForPath(file.path)) : undefined;
  return (
    <div
      ref={host}
      className="code-editor"
      data-path={path}
      data-language={language}
      data-minimap={String(minimap && !file?.large)}
    />
  );
}

function gutterDecoration(change: GutterChange): monaco.editor.IModelDeltaDecoration {
  return {
    range: new monaco.Range(change.startLine, 1, change.endLine, 1),
    options: {
      isWholeLine: true,
      linesDecorationsClassName: `gutter-${change.kind}`,
      overviewRuler: {
        color: change.kind === 'added' ? '#2ea043' : change.kind === 'deleted' ? '#f85149' : '#0078d4',
        position: monaco.editor.OverviewRulerLane.Left,
      },
    },
  };
}

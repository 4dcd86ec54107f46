import type { monaco } from '../editor';

/**
 * The one node on the page's body that cell editors put their overflow widgets in (suggest, hover, signature
 * help, the rename box). A cell is `content-visibility: auto`, and containment would place and clip fixed
 * widgets inside it. The node carries `monaco-editor` so Monaco's styles and theme apply to what it holds, as
 * VS Code's notebooks do.
 */
// process-wide: one node in the page's body, as Monaco's focus is one per page.
let node: HTMLElement | null = null;
/** The cell editor that last had focus: the one whose widget is focused when focus is in this node. */
let owner: monaco.editor.ICodeEditor | null = null;

/**
 * Monaco's keybindings listen on each editor's own node, so keys typed in a widget here that takes focus (the
 * rename box of F2) reach none: Enter and Escape there are the owning editor's accept and cancel.
 */
function passWidgetKeys(event: KeyboardEvent): void {
  const target = event.target as HTMLElement | null;
  if (!owner || !target?.closest('.rename-box') || event.altKey || event.ctrlKey || event.metaKey) return;
  const command =
    event.key === 'Enter' ? (event.shiftKey ? 'acceptRenameInputWithPreview' : 'acceptRenameInput') : null;
  const handler = command ?? (event.key === 'Escape' ? 'cancelRenameInput' : null);
  if (!handler) return;
  event.preventDefault();
  event.stopPropagation();
  owner.trigger('keyboard', handler, {});
}

export function overflowWidgetsNode(): HTMLElement {
  if (!node) {
    node = document.createElement('div');
    node.className = 'monaco-editor nb-overflow-widgets';
    node.addEventListener('keydown', passWidgetKeys);
    document.body.appendChild(node);
  }
  return node;
}

/** Makes a cell editor the owner of the focused widget while it has focus. Returns what undoes it. */
export function trackOverflowOwner(editor: monaco.editor.ICodeEditor): () => void {
  const focus = editor.onDidFocusEditorText(() => {
    owner = editor;
  });
  return () => {
    focus.dispose();
    if (owner === editor) owner = null;
  };
}

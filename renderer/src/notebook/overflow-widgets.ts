/**
 * The one node on the page's body that cell editors put their overflow widgets in (suggest, hover, signature
 * help). A cell is `content-visibility: auto`, and containment would place and clip fixed widgets inside it.
 * The node carries `monaco-editor` so Monaco's styles and theme apply to what it holds, as VS Code's notebooks do.
 */
let node: HTMLElement | null = null;

export function overflowWidgetsNode(): HTMLElement {
  if (!node) {
    node = document.createElement('div');
    node.className = 'monaco-editor nb-overflow-widgets';
    document.body.appendChild(node);
  }
  return node;
}

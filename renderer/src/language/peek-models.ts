import type { KilnBridge } from '../../../shared/contract';
import { monaco } from '../editor';
import type { TextModels } from '../editor';
import { resolvedCellModel, resolvedCellNumber } from './document-resolvers';

/**
 * Models for showing places in files that have no tab (a peek of references, a definition's preview): read-only
 * copies read from disk, replaced when read again. A file with a tab is shown in its own model.
 */
export class PeekModels implements monaco.IDisposable {
  private readonly models = new Map<string, monaco.editor.ITextModel>();
  /** Copies of cells' models, by notebook and cell id. */
  private readonly cellModels = new Map<string, monaco.editor.ITextModel>();

  constructor(
    private readonly bridge: KilnBridge,
    private readonly textModels: TextModels,
  ) {}

  async uriFor(path: string): Promise<monaco.Uri | null> {
    const open = this.textModels.modelIfOpen(path);
    if (open) return open.uri;
    let content;
    try {
      content = await this.bridge.request('workspace.read', { path });
    } catch {
      return null;
    }
    if (content.text === null) return null;
    const existing = this.models.get(path);
    if (existing && !existing.isDisposed()) {
      if (existing.getValue() !== content.text) existing.setValue(content.text);
      return existing.uri;
    }
    const model = monaco.editor.createModel(content.text, 'python', peekUri(path));
    this.models.set(path, model);
    return model.uri;
  }

  /**
   * A notebook cell's place, for a peek of references: a copy of the cell's model under a URI whose name is
   * "Cell N" (the peek labels places by their URI; a cell editor's model is just a number), its notebook the
   * folder. Null when the cell's editor is not mounted.
   */
  cellUriFor(path: string, cell: string): monaco.Uri | null {
    const live = resolvedCellModel(path, cell);
    const model = live && monaco.editor.getModel(live);
    if (!model) return null;
    const uri = cellPeekUri(path, cell, resolvedCellNumber(path, cell));
    const key = `${path}\n${cell}`;
    const existing = this.cellModels.get(key);
    if (existing && !existing.isDisposed() && existing.uri.toString() === uri.toString()) {
      if (existing.getValue() !== model.getValue()) existing.setValue(model.getValue());
      return existing.uri;
    }
    existing?.dispose();
    const copy = monaco.editor.createModel(model.getValue(), 'python', uri);
    mirrorEdits(copy, model);
    this.cellModels.set(key, copy);
    return copy.uri;
  }

  dispose(): void {
    for (const model of [...this.models.values(), ...this.cellModels.values()]) model.dispose();
    this.models.clear();
    this.cellModels.clear();
  }
}

/**
 * Keeps a cell's peek copy and the cell's own model the same text: typing in the peek edits the cell (one undo step
 * in it, as typed there), and the cell's edits show in the peek. Ends when either model goes.
 */
function mirrorEdits(copy: monaco.editor.ITextModel, cell: monaco.editor.ITextModel): void {
  let applying = false;
  const follow = (from: monaco.editor.ITextModel, to: monaco.editor.ITextModel) =>
    from.onDidChangeContent((event) => {
      if (applying || to.isDisposed()) return;
      applying = true;
      try {
        // The changes' ranges are all in the text before the edit, as one batch of edits takes them.
        const edits = event.changes.map((change) => ({ range: change.range, text: change.text }));
        if (to === cell) to.pushEditOperations(null, edits, () => null);
        else to.applyEdits(edits);
      } finally {
        applying = false;
      }
    });
  const links = [follow(copy, cell), follow(cell, copy)];
  const end = () => links.forEach((link) => link.dispose());
  copy.onWillDispose(end);
  cell.onWillDispose(end);
}

export const PEEK_SCHEME = 'kiln-peek';
/** A notebook cell shown in a peek: `/<notebook path>/Cell N`, the cell's id in the query. */
export const CELL_PEEK_SCHEME = 'kiln-cell';

function cellPeekUri(path: string, cell: string, number: number | null): monaco.Uri {
  const name = number === null ? 'Cell' : `Cell ${number}`;
  return monaco.Uri.from({
    scheme: CELL_PEEK_SCHEME,
    path: `/${path}/${name}`,
    query: `cell=${encodeURIComponent(cell)}`,
  });
}

/** The notebook and cell a cell peek's URI names. */
export function cellOfPeekUri(uri: monaco.Uri): { path: string; cell: string } | null {
  const cell = new URLSearchParams(uri.query).get('cell');
  if (uri.scheme !== CELL_PEEK_SCHEME || cell === null) return null;
  return { path: uri.path.slice(1, uri.path.lastIndexOf('/')), cell };
}

/** What typing in a peek of a file without a tab says: the copy there is not the file. */
export const PEEK_READ_ONLY_MESSAGE = 'This file has no tab here: open it (Enter or double-click) to edit it.';

/**
 * A peek's preview of a file without a tab shows a copy read from disk, which no save would write: every editor
 * showing such a copy is read-only and says how to edit the file, so typing there is never lost without a word.
 */
export function keepPeekCopiesReadOnly(): monaco.IDisposable {
  const madeReadOnly = new WeakSet<monaco.editor.ICodeEditor>();
  const follow = (editor: monaco.editor.ICodeEditor) => {
    const copy = editor.getModel()?.uri.scheme === PEEK_SCHEME;
    if (copy) {
      madeReadOnly.add(editor);
      editor.updateOptions({ readOnly: true, readOnlyMessage: { value: PEEK_READ_ONLY_MESSAGE } });
    } else if (madeReadOnly.delete(editor)) {
      editor.updateOptions({ readOnly: false });
    }
  };
  return monaco.editor.onDidCreateEditor((editor) => {
    follow(editor);
    const sub = editor.onDidChangeModel(() => follow(editor));
    editor.onDidDispose(() => sub.dispose());
  });
}

function peekUri(path: string): monaco.Uri {
  return monaco.Uri.from({ scheme: PEEK_SCHEME, path: `/${path}` });
}

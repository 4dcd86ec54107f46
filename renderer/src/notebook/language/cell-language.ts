import type {
  CompletionEntry,
  CompletionKind,
  KilnBridge,
  LspDiagnostic,
  LspLocation,
  LspPosition,
  LspRange,
  Markup,
  RequestArgs,
  RequestResult,
} from '../../../../shared/contract';
import { perBridge } from '../../base';
import { monaco } from '../../editor';
import { libraryUri, registerDocumentResolver, useLanguageClient } from '../../language';
import { useCellNumbers } from './cell-numbers';

/*
 * The language server in a notebook's cell editors. Main presents the notebook's code cells to the server
 * as one document and places every answer in its cell (`cell` on positions, ranges and locations), so here a
 * cell editor only says which cell it is: diagnostics become markers on that cell's lines, completion gives
 * the static items the kernel's completion merges with (kernel-assist.ts), hover shows the static signature
 * at once (the kernel's inspection is another hover part that comes when it answers), and F12 goes to a
 * definition in another cell or a file. Requests go out when Monaco asks and are cancelled when it stops
 * caring; none is on the typing path, and a missing server answers nothing.
 */

/** One notebook's way to the language server, for the editors of its code cells. */
export interface CellLanguageSource {
  readonly bridge: KilnBridge;
  path(): string;
  /** Sends what was typed but not yet sent, so main's copy of the cell is what the editor shows. */
  flush(): Promise<void>;
  /** Opens a file at a range (F12 into `src/`). */
  openFile(path: string, range: LspRange): void;
  /** Shows a cell of this notebook with the range selected. */
  revealCell(cellId: string, range: LspRange): void;
}

interface AttachedCell {
  cellId: string;
  source: CellLanguageSource;
}

/**
 * A window's cell editors with the server's help. Monaco's registries are one per page, so each window registers
 * its own providers, and each answers only for its own cells' models: two windows in one page never answer for
 * each other's cells.
 */
interface WindowCells {
  /** Cell editors' models, by URI: which cell of which notebook each is. */
  cells: Map<string, AttachedCell>;
  providersRegistered: boolean;
}

const windowCellsOf = perBridge((): WindowCells => ({ cells: new Map(), providersRegistered: false }));
// process-wide: request ids only grow; unique across windows is all they need to be.
let nextRequestId = 1;
const MARKER_OWNER = 'kiln.notebookLanguage';

function toMonacoRange(range: LspRange): monaco.IRange {
  return {
    startLineNumber: range.start.line + 1,
    startColumn: range.start.character + 1,
    endLineNumber: range.end.line + 1,
    endColumn: range.end.character + 1,
  };
}

function toLspPosition(position: monaco.IPosition): LspPosition {
  return { line: position.lineNumber - 1, character: position.column - 1 };
}

function markdownOf(markup: Markup): monaco.IMarkdownString {
  return { value: markup.kind === 'markdown' ? markup.value : fencedText(markup.value) };
}

function fencedText(text: string): string {
  const fence = '`'.repeat(Math.max(3, ...[...text.matchAll(/`+/g)].map((m) => m[0].length + 1)));
  return `${fence}text\n${text}\n${fence}`;
}

const SEVERITY: Record<LspDiagnostic['severity'], monaco.MarkerSeverity> = {
  error: 8,
  warning: 4,
  information: 2,
  hint: 1,
};

type CellChannel = 'language.completion' | 'language.hover' | 'language.definition';

/**
 * Asks the server about a position of a cell editor's model, once main has the cell as the editor shows it.
 * Null when the model is no cell with the server's help, or for no answer (no server, a closed notebook, a lost
 * connection, cancelled with `token`): never an error in the editor.
 */
async function askAt<C extends CellChannel>(
  cells: Map<string, AttachedCell>,
  channel: C,
  model: monaco.editor.ITextModel,
  position: monaco.IPosition,
  token: monaco.CancellationToken,
  extra: Partial<RequestArgs<C>> = {},
): Promise<{ answer: RequestResult<C>; attached: AttachedCell } | null> {
  const attached = cells.get(model.uri.toString());
  if (!attached) return null;
  const { source, cellId } = attached;
  const requestId = nextRequestId++;
  const cancelling = token.onCancellationRequested(() => {
    source.bridge.request('language.cancel', { requestId }).catch(() => undefined);
  });
  try {
    await source.flush();
    if (token.isCancellationRequested) return null;
    const args = { ...extra, path: source.path(), cell: cellId, position: toLspPosition(position), requestId };
    const answer = await source.bridge.request(channel, args as RequestArgs<C>);
    return token.isCancellationRequested ? null : { answer, attached };
  } catch {
    return null;
  } finally {
    cancelling.dispose();
  }
}

function completionKindOf(kind: CompletionKind): monaco.languages.CompletionItemKind {
  const name = (kind.charAt(0).toUpperCase() + kind.slice(1)) as keyof typeof monaco.languages.CompletionItemKind;
  return monaco.languages.CompletionItemKind[name] ?? monaco.languages.CompletionItemKind.Text;
}

/** One static item as Monaco's, replacing `fallbackRange` unless the server named its own range. */
function completionItem(
  entry: CompletionEntry,
  fallbackRange: monaco.IRange,
  order: number,
): monaco.languages.CompletionItem {
  return {
    label: entry.label,
    kind: completionKindOf(entry.kind),
    detail: entry.detail,
    documentation: entry.documentation ? markdownOf(entry.documentation) : undefined,
    insertText: entry.insertText,
    insertTextRules: entry.snippet ? monaco.languages.CompletionItemInsertTextRule.InsertAsSnippet : undefined,
    filterText: entry.filterText,
    // After the kernel's items (prefix 0), in the server's order.
    sortText: `1${entry.sortText ?? String(order).padStart(5, '0')}`,
    range: entry.range && entry.range.start.line === entry.range.end.line ? toMonacoRange(entry.range) : fallbackRange,
  };
}

/**
 * The language server's completions at a position of a cell editor's model: null when the model is no cell
 * with the server's help, or the server gave nothing (not running, slow, cancelled).
 */
export async function staticCompletions(
  bridge: KilnBridge,
  model: monaco.editor.ITextModel,
  position: monaco.Position,
  token: monaco.CancellationToken,
  triggerCharacter?: string,
): Promise<monaco.languages.CompletionItem[] | null> {
  const { cells } = windowCellsOf.of(bridge);
  const asked = await askAt(cells, 'language.completion', model, position, token, { triggerCharacter });
  const list = asked?.answer;
  if (!asked || !list?.items.length) return null;
  const { cellId } = asked.attached;
  const word = model.getWordUntilPosition(position);
  const range = new monaco.Range(position.lineNumber, word.startColumn, position.lineNumber, position.column);
  return list.items.map((entry, i) => {
    const item = completionItem(entry, range, i);
    // Edits the server places in another cell (an import at the top of the notebook) are not applied here.
    item.additionalTextEdits = entry.additionalEdits
      ?.filter((edit) => edit.cell === cellId)
      .map((edit) => ({ range: toMonacoRange(edit.range), text: edit.newText }));
    return item;
  });
}

function hoverProvider(cells: Map<string, AttachedCell>): monaco.languages.HoverProvider {
  return {
    async provideHover(model, position, token) {
      const hover = (await askAt(cells, 'language.hover', model, position, token))?.answer;
      if (!hover) return undefined;
      return {
        range: hover.range ? toMonacoRange(hover.range) : undefined,
        contents: [markdownOf(hover.contents)],
      };
    },
  };
}

/** Where F12 lands: another cell's editor, or a file, as a URI Monaco hands to the opener below. */
const TARGET_SCHEME = 'kiln-definition';

function targetUri(location: LspLocation, notebookPath: string): monaco.Uri {
  // A library file outside the workspace: the editor's opener shows it in a read-only tab.
  if (location.library) return libraryUri(location.path);
  const query =
    location.cell !== undefined && location.path === notebookPath ? `cell=${encodeURIComponent(location.cell)}` : '';
  return monaco.Uri.from({ scheme: TARGET_SCHEME, path: `/${location.path}`, query });
}

function definitionProvider(cells: Map<string, AttachedCell>): monaco.languages.DefinitionProvider {
  return {
    async provideDefinition(model, position, token) {
      const asked = await askAt(cells, 'language.definition', model, position, token);
      if (!asked) return undefined;
      const { source, cellId } = asked.attached;
      return asked.answer.map((location) => ({
        // In this very cell: Monaco moves the cursor itself.
        uri:
          location.cell === cellId && location.path === source.path() ? model.uri : targetUri(location, source.path()),
        range: toMonacoRange(location.range),
      }));
    },
  };
}

/** Monaco opens a definition outside the cell: the notebook shows the cell, or the file opens in its tab. */
function definitionOpener(cells: Map<string, AttachedCell>): monaco.editor.ICodeEditorOpener {
  return {
    openCodeEditor(from, resource, selectionOrPosition) {
      // A reference in a peek, in another cell's editor: the notebook shows that cell.
      const shown = cells.get(resource.toString());
      if (resource.scheme !== TARGET_SCHEME && !shown) return false;
      const attached = shown ?? cells.get(from.getModel()?.uri.toString() ?? '');
      if (!attached) return false;
      const start =
        selectionOrPosition && 'startLineNumber' in selectionOrPosition
          ? { line: selectionOrPosition.startLineNumber - 1, character: selectionOrPosition.startColumn - 1 }
          : selectionOrPosition
            ? toLspPosition(selectionOrPosition)
            : { line: 0, character: 0 };
      const end =
        selectionOrPosition && 'endLineNumber' in selectionOrPosition
          ? { line: selectionOrPosition.endLineNumber - 1, character: selectionOrPosition.endColumn - 1 }
          : start;
      const range = { start, end };
      const cell = shown ? shown.cellId : new URLSearchParams(resource.query).get('cell');
      if (cell !== null) attached.source.revealCell(cell, range);
      else attached.source.openFile(resource.path.replace(/^\//, ''), range);
      return true;
    },
  };
}

/** The cell editor's model showing a cell of a notebook, if it is mounted. */
function cellModelUri(cells: Map<string, AttachedCell>, path: string, cellId: string): monaco.Uri | null {
  for (const [uri, attached] of cells) {
    if (attached.cellId === cellId && attached.source.path() === path) return monaco.Uri.parse(uri);
  }
  return null;
}

/** The window's providers, registered with its first cell editor; they live as long as the window (its bridge). */
function registerProviders(bridge: KilnBridge): void {
  const windowCells = windowCellsOf.of(bridge);
  if (windowCells.providersRegistered) return;
  windowCells.providersRegistered = true;
  const { cells } = windowCells;
  monaco.languages.registerHoverProvider('python', hoverProvider(cells));
  monaco.languages.registerDefinitionProvider('python', definitionProvider(cells));
  monaco.editor.registerEditorOpener(definitionOpener(cells));
  // Signature help, references (Shift+F12), rename (F2) and quick fixes are the editor's, asked of a cell.
  registerDocumentResolver({
    documentOf: (model) => {
      const attached = cells.get(model.uri.toString());
      if (!attached) return null;
      const { source, cellId } = attached;
      return { path: source.path(), cell: cellId, flush: () => source.flush() };
    },
    modelOf: (path, cellId) => cellModelUri(cells, path, cellId),
    cellNumberOf: (path, cellId) => useCellNumbers.of(bridge).numberOf(path, cellId),
  });
}

function showMarkers(model: monaco.editor.ITextModel, diagnostics: readonly LspDiagnostic[]): void {
  monaco.editor.setModelMarkers(
    model,
    MARKER_OWNER,
    diagnostics.map((d) => ({
      ...toMonacoRange(d.range),
      severity: SEVERITY[d.severity],
      message: d.message,
      source: d.source,
      code: d.code,
      tags: d.tags?.map((tag) => (tag === 'unnecessary' ? monaco.MarkerTag.Unnecessary : monaco.MarkerTag.Deprecated)),
    })),
  );
}

/** Gives one code cell's editor the language server's help. Returns what undoes it (when the editor goes away). */
export function attachCellLanguage(
  editor: monaco.editor.IStandaloneCodeEditor,
  cellId: string,
  source: CellLanguageSource,
): () => void {
  const model = editor.getModel();
  if (!model) return () => undefined;
  const key = model.uri.toString();
  const attached: AttachedCell = { cellId, source };
  const { cells } = windowCellsOf.of(source.bridge);
  cells.set(key, attached);
  registerProviders(source.bridge);
  // The language client holds every document's diagnostics; a notebook's carry their cell.
  const client = useLanguageClient.of(source.bridge);
  let shown: readonly LspDiagnostic[] | undefined;
  const refresh = () => {
    const forNotebook = client.getState().diagnostics[source.path()];
    if (model.isDisposed() || (forNotebook === shown && shown !== undefined)) return;
    shown = forNotebook;
    showMarkers(
      model,
      (forNotebook ?? []).filter((d) => d.cell === cellId),
    );
  };
  refresh();
  const unsubscribe = client.subscribe(refresh);
  return () => {
    unsubscribe();
    if (cells.get(key) === attached) cells.delete(key);
    if (!model.isDisposed()) monaco.editor.setModelMarkers(model, MARKER_OWNER, []);
  };
}

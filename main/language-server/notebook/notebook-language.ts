import type {
  CellEdits,
  CodeAction,
  CompletionList,
  DocumentDiagnostics,
  EditPreview,
  FileEdits,
  LspLocation,
  LspRange,
  LspTextEdit,
  WorkspaceSymbol,
} from '../../../shared/contract';
import { KilnError } from '../../../shared/errors';
import { DisposableStore, type IDisposable } from '../../../shared/base/lifecycle';
import { Emitter, type Event } from '../../../shared/base/event';
import type { HandlersFor } from '../../router';
import { applyTextEdits, offsetAt } from '../text';
import { NotebookLanguageDocuments, type NotebookCellsSource, type VirtualDocumentSink } from './notebook-documents';

/*
 * The language server's channels for notebook cells. A request that names a `cell` is asked of the
 * notebook's virtual document at the mapped position, and every range, location and diagnostic in an answer
 * that lies in a virtual document is given back as its notebook's path and cell. The server manager never
 * knows notebooks exist: it holds the virtual documents like open buffers.
 */

/** The channels that take a position in a document (and so may name a cell). */
type PositionChannel =
  | 'language.completion'
  | 'language.hover'
  | 'language.signatureHelp'
  | 'language.definition'
  | 'language.references'
  | 'language.prepareRename'
  | 'language.rename';

type Wrapped =
  | PositionChannel
  | 'language.workspaceSymbols'
  | 'language.allDiagnostics'
  | 'language.codeActions'
  | 'language.applyEdits';

/** The server manager as the notebooks use it (LanguageService fits). */
export interface NotebookLanguageServer extends VirtualDocumentSink {
  allDiagnostics(): DocumentDiagnostics[];
  /** Every document's diagnostics as the server publishes them, virtual documents' among them. */
  readonly onDidPublishDiagnostics: Event<DocumentDiagnostics>;
  /** Documents held only in the server's memory: a rename or quick fix hands their edits back, never writing them. */
  keepInMemory(isInMemory: (path: string) => boolean): IDisposable;
}

export interface NotebookLanguageOptions {
  notebooks: NotebookCellsSource;
  server: NotebookLanguageServer;
}

export class NotebookLanguage implements IDisposable {
  readonly documents: NotebookLanguageDocuments;
  private readonly disposables = new DisposableStore();
  private readonly diagnosticsEmitter = this.disposables.add(new Emitter<DocumentDiagnostics>());
  /**
   * Diagnostics as the renderer is told them (`language.diagnostics`): the server's, a virtual document's as its
   * notebook's, and a notebook's cleared when it is no longer mirrored.
   */
  readonly onDidPublishDiagnostics: Event<DocumentDiagnostics> = this.diagnosticsEmitter.event;
  /** The notebooks' edits of recent previews, by preview id and virtual document: what `applyEdits` hands back. */
  private readonly notebookEdits = new Map<number, Map<string, FileEdits>>();

  constructor(options: NotebookLanguageOptions) {
    this.documents = new NotebookLanguageDocuments({ notebooks: options.notebooks, server: options.server });
    this.disposables.add(options.server.keepInMemory((path) => this.documents.isVirtual(path)));
    this.disposables.add(
      options.server.onDidPublishDiagnostics((entry) => {
        const relayed = this.relayDiagnostics(entry);
        if (relayed) this.diagnosticsEmitter.fire(relayed);
      }),
    );
    // A notebook no longer mirrored (closed, moved) has no diagnostics left under its name.
    this.disposables.add(
      this.documents.onDidForget((path) => this.diagnosticsEmitter.fire({ path, version: null, diagnostics: [] })),
    );
  }

  /**
   * What the server manager announces, seen first: a virtual document's diagnostics become its notebook's
   * (null: nothing to announce, e.g. diagnostics of a notebook text that has changed since). Others pass as they are.
   */
  relayDiagnostics(entry: DocumentDiagnostics): DocumentDiagnostics | null {
    if (!this.documents.isVirtual(entry.path)) return entry;
    const placed = this.documents.diagnosticsOf(entry.path, entry.diagnostics, entry.version);
    return placed ? { path: placed.path, version: null, diagnostics: placed.diagnostics } : null;
  }

  /**
   * A preview as the renderer shows it: a virtual document's edits become its notebook's, each in its cell, with
   * every changed cell's source before and after. Kept by preview id for `applyEdits`.
   */
  private notebookPreview(preview: EditPreview): EditPreview {
    if (!preview.files.some((f) => this.documents.isVirtual(f.path))) return preview;
    const byVirtual = new Map<string, FileEdits>();
    const files = preview.files.map((file) => {
      if (!this.documents.isVirtual(file.path)) return file;
      const placed = this.cellEdits(file);
      byVirtual.set(file.path, placed);
      return placed;
    });
    this.notebookEdits.set(preview.previewId, byVirtual);
    // As main's previews: only recent ones can be applied.
    for (const id of this.notebookEdits.keys()) if (id < preview.previewId - 20) this.notebookEdits.delete(id);
    return { ...preview, files };
  }

  /** A virtual document's edits as its notebook's cells' (refused when the notebook moved on or an edit spans cells). */
  private cellEdits(file: FileEdits): FileEdits {
    const docs = this.documents;
    const notebookPath = docs.notebookOf(file.path);
    const sources = notebookPath ? docs.cellSources(notebookPath) : null;
    if (!notebookPath || !sources || docs.textOf(file.path) !== file.oldText)
      throw new KilnError('E_CHANGED_ON_DISK', 'The notebook changed while the edits were computed; try again.');
    const edits: LspTextEdit[] = [];
    const byCell = new Map<string, LspTextEdit[]>();
    for (const edit of file.edits) {
      const placed = docs.placeOf(file.path, edit.range);
      const source = placed ? sources.get(placed.cell) : undefined;
      const back = placed && docs.rangeToServer(notebookPath, placed.cell, placed.range);
      // An edit must lie in one cell and change Python the operator wrote, not a masked magic's stand-in.
      const sameText =
        source !== undefined &&
        placed &&
        back &&
        sameRange(back, edit.range) &&
        sliceOf(source, placed.range) === sliceOf(file.oldText, edit.range);
      if (!sameText)
        throw new KilnError('E_BAD_REQUEST', 'The edits reach across notebook cells or into IPython syntax.');
      const cellEdit = { range: placed.range, newText: edit.newText, cell: placed.cell };
      edits.push(cellEdit);
      byCell.set(placed.cell, [...(byCell.get(placed.cell) ?? []), cellEdit]);
    }
    const cells: CellEdits[] = [...byCell].map(([cell, list]) => {
      const oldText = sources.get(cell)!;
      return { cell, oldText, newText: applyTextEdits(oldText, list) };
    });
    return { path: notebookPath, edits, oldText: file.oldText, newText: file.newText, baseHash: null, cells };
  }

  /** The server manager's handlers with notebook cells served through their virtual documents. */
  handlers<H extends HandlersFor<Wrapped>>(base: H): H {
    const docs = this.documents;
    /** The document and position a request is asked at: the virtual document's for a cell. */
    const at = <A extends { path: string; cell?: string; position: { line: number; character: number } }>(
      args: A,
    ): A | null => {
      if (args.cell === undefined) return args;
      const mapped = docs.toServer(args.path, args.cell, args.position);
      return mapped ? { ...args, path: mapped.path, position: mapped.position, cell: undefined } : null;
    };
    const place = (location: LspLocation): LspLocation | null => {
      if (!docs.isVirtual(location.path)) return location;
      const placed = docs.placeOf(location.path, location.range);
      return placed ? { path: placed.path, cell: placed.cell, range: placed.range } : null;
    };
    const places = (locations: LspLocation[]) => locations.map(place).filter((l): l is LspLocation => l !== null);
    /** A range of the virtual document asked at, as a range of `cell`; null when it lies in another cell. */
    const inCell = (virtualPath: string, cell: string, range: LspRange): LspRange | null => {
      const placed = docs.placeOf(virtualPath, range);
      return placed?.cell === cell ? placed.range : null;
    };
    const edits = (virtualPath: string, list: LspTextEdit[]): LspTextEdit[] =>
      list.flatMap((edit) => {
        const placed = docs.placeOf(virtualPath, edit.range);
        return placed ? [{ ...edit, range: placed.range, cell: placed.cell }] : [];
      });

    const wrapped: HandlersFor<Wrapped> = {
      'language.completion': async (args) => {
        const asked = at(args);
        if (!asked || args.cell === undefined) return asked ? base['language.completion'](asked) : null;
        const list: CompletionList | null = await base['language.completion'](asked);
        if (!list) return null;
        return {
          ...list,
          items: list.items.map((item) => {
            const range = item.range ? inCell(asked.path, args.cell!, item.range) : undefined;
            const additionalEdits = item.additionalEdits ? edits(asked.path, item.additionalEdits) : undefined;
            const { range: _range, additionalEdits: _edits, ...rest } = item;
            return { ...rest, ...(range ? { range } : {}), ...(additionalEdits ? { additionalEdits } : {}) };
          }),
        };
      },
      'language.hover': async (args) => {
        const asked = at(args);
        if (!asked) return null;
        const hover = await base['language.hover'](asked);
        if (!hover || args.cell === undefined || !hover.range) return hover;
        const range = inCell(asked.path, args.cell, hover.range);
        return range ? { ...hover, range } : { contents: hover.contents };
      },
      'language.signatureHelp': async (args) => {
        const asked = at(args);
        return asked ? base['language.signatureHelp'](asked) : null;
      },
      'language.definition': async (args) => {
        const asked = at(args);
        return asked ? places(await base['language.definition'](asked)) : [];
      },
      'language.references': async (args) => {
        const asked = at(args);
        return asked ? places(await base['language.references'](asked)) : [];
      },
      'language.prepareRename': async (args) => {
        const asked = at(args);
        const answer = asked && (await base['language.prepareRename'](asked));
        if (!asked || !answer || args.cell === undefined) return answer;
        const range = inCell(asked.path, args.cell, answer.range);
        return range ? { ...answer, range } : null;
      },
      // From a cell or a file, a rename may reach notebooks that use the name: their cells are in the preview.
      'language.rename': async (args) => {
        const asked = at(args);
        if (!asked) throw new KilnError('E_NOT_FOUND', 'The cell is not open in the language server.');
        return this.notebookPreview(await base['language.rename'](asked));
      },
      'language.applyEdits': async (args) => {
        const applied = await base['language.applyEdits'](args);
        const byVirtual = this.notebookEdits.get(args.previewId);
        this.notebookEdits.delete(args.previewId);
        if (!byVirtual) return applied;
        return {
          ...applied,
          toBuffers: applied.toBuffers.flatMap((file) => {
            if (!docs.isVirtual(file.path)) return [file];
            const placed = byVirtual.get(file.path);
            return placed ? [placed] : [];
          }),
        };
      },
      'language.workspaceSymbols': async (args) => {
        const symbols: WorkspaceSymbol[] = await base['language.workspaceSymbols'](args);
        return symbols.flatMap((symbol) => {
          const location = place(symbol.location);
          return location ? [{ ...symbol, location }] : [];
        });
      },
      'language.codeActions': async (args) => {
        const { cell } = args;
        if (cell === undefined) {
          // A notebook is asked about through a cell only.
          if (args.path.toLowerCase().endsWith('.ipynb')) return [];
          return (await base['language.codeActions'](args)).map((action) => this.notebookAction(action));
        }
        const range = docs.rangeToServer(args.path, cell, args.range);
        if (!range) return [];
        const virtualPath = docs.virtualPathOf(args.path);
        const actions = await base['language.codeActions']({ ...args, path: virtualPath, range, cell: undefined });
        return actions.flatMap((action) => {
          try {
            return [this.notebookAction(action, virtualPath)];
          } catch {
            // An action whose edits cannot be placed in cells (across cells, into magics) is not offered.
            return [];
          }
        });
      },
      'language.allDiagnostics': async () => {
        const all: DocumentDiagnostics[] = await base['language.allDiagnostics']({});
        return all.map((entry) => this.relayDiagnostics(entry)).filter((e): e is DocumentDiagnostics => e !== null);
      },
    };
    return { ...base, ...wrapped };
  }

  /**
   * A code action with its edits placed in notebook cells where they lie in a virtual document, and, asked in
   * `virtualPath` (a cell's), its diagnostics placed in their cells.
   */
  private notebookAction(action: CodeAction, virtualPath?: string): CodeAction {
    const edit = action.edit ? this.notebookPreview(action.edit) : undefined;
    const diagnostics =
      virtualPath === undefined
        ? action.diagnostics
        : action.diagnostics?.flatMap((d) => {
            const placed = this.documents.placeOf(virtualPath, d.range);
            return placed ? [{ ...d, range: placed.range, cell: placed.cell }] : [];
          });
    return { ...action, ...(edit ? { edit } : {}), ...(diagnostics ? { diagnostics } : {}) };
  }

  dispose(): void {
    void this.disposables.dispose();
    this.documents.dispose();
  }
}

function sameRange(a: LspRange, b: LspRange): boolean {
  return (
    a.start.line === b.start.line &&
    a.start.character === b.start.character &&
    a.end.line === b.end.line &&
    a.end.character === b.end.character
  );
}

/** The text a range covers. */
function sliceOf(text: string, range: LspRange): string {
  return text.slice(offsetAt(text, range.start), offsetAt(text, range.end));
}

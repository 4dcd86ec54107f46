import type {
  CompletionList,
  DocumentDiagnostics,
  LspLocation,
  LspRange,
  LspTextEdit,
  WorkspaceSymbol,
} from '../../../shared/contract';
import { KilnError } from '../../../shared/errors';
import type { IDisposable } from '../../../shared/base/lifecycle';
import type { HandlersFor } from '../../router';
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

type Wrapped = PositionChannel | 'language.workspaceSymbols' | 'language.allDiagnostics' | 'language.codeActions';

/** The server manager as the notebooks use it (LanguageService fits). */
export interface NotebookLanguageServer extends VirtualDocumentSink {
  allDiagnostics(): DocumentDiagnostics[];
}

export interface NotebookLanguageOptions {
  notebooks: NotebookCellsSource;
  server: NotebookLanguageServer;
  /** Announces a notebook's diagnostics (the `language.diagnostics` event). */
  publish(diagnostics: DocumentDiagnostics): void;
}

export class NotebookLanguage implements IDisposable {
  readonly documents: NotebookLanguageDocuments;
  private readonly forgetting: IDisposable;

  constructor(options: NotebookLanguageOptions) {
    this.documents = new NotebookLanguageDocuments({ notebooks: options.notebooks, server: options.server });
    // A notebook no longer mirrored (closed, moved) has no diagnostics left under its name.
    this.forgetting = this.documents.onDidForget((path) => options.publish({ path, version: null, diagnostics: [] }));
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
      // In a cell there is nothing to rename yet; in a file it stays the server's.
      'language.prepareRename': async (args) => (args.cell === undefined ? base['language.prepareRename'](args) : null),
      'language.rename': async (args) => {
        if (args.cell !== undefined)
          throw new KilnError('E_BAD_REQUEST', 'Rename from a notebook cell is not supported yet.');
        return base['language.rename'](args);
      },
      'language.workspaceSymbols': async (args) => {
        const symbols: WorkspaceSymbol[] = await base['language.workspaceSymbols'](args);
        return symbols.flatMap((symbol) => {
          const location = place(symbol.location);
          return location ? [{ ...symbol, location }] : [];
        });
      },
      'language.codeActions': async (args) => {
        // Quick fixes edit the virtual document; cells get them once edits can be applied to cells.
        if (args.cell !== undefined || args.path.toLowerCase().endsWith('.ipynb')) return [];
        return base['language.codeActions'](args);
      },
      'language.allDiagnostics': async () => {
        const all: DocumentDiagnostics[] = await base['language.allDiagnostics']({});
        return all.map((entry) => this.relayDiagnostics(entry)).filter((e): e is DocumentDiagnostics => e !== null);
      },
    };
    return { ...base, ...wrapped };
  }

  dispose(): void {
    this.forgetting.dispose();
    this.documents.dispose();
  }
}

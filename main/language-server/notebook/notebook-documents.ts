import { Emitter, type Event } from '../../../shared/base/event';
import { DisposableStore, type IDisposable } from '../../../shared/base/lifecycle';
import { NotebookVirtualDocument, type Position, type Range } from './virtual-document';

/*
 * Every open Python notebook mirrored to the language server as one virtual document (see
 * virtual-document.ts), kept current from the notebook service: an edit by the operator, the agent or an
 * MCP client, a reload from disk, a revert, a move. The document is named after the notebook
 * (`analysis.ipynb` → `analysis.ipynb.kiln-cells.py`, beside it, so imports resolve as from the notebook's
 * folder) and exists only in the server's memory: nothing is written. The server manager holds it like a
 * buffer the renderer has open (so a restarted server gets it back).
 */

/** The suffix of a notebook's virtual document: a name no Python module can import. */
const VIRTUAL_SUFFIX = '.kiln-cells.py';

/** What the notebook service offers (NotebookService fits). */
export interface NotebookCellsSource {
  codeCells(path: string): { language: string | null; cells: { id: string; source: string }[] } | null;
  readonly onDidChangeCells: Event<
    { kind: 'opened' | 'edited' | 'closed'; path: string } | { kind: 'moved'; from: string; path: string }
  >;
}

/** The server's open documents by workspace path, as the language server manager keeps them (LanguageService fits). */
export interface VirtualDocumentSink {
  didOpen(path: string, version: number, text: string): boolean;
  didChange(path: string, version: number, changes: { text: string }[]): boolean;
  didClose(path: string): boolean;
}

/** A server diagnostic, as LSP sends it (the fields this module reads or passes on). */
export interface ServerDiagnostic {
  range: Range;
  message: string;
  code?: string | number;
  [field: string]: unknown;
}

/** A range of a notebook: the cell it lies in and the range in that cell. */
export interface NotebookPlace {
  path: string;
  cell: string;
  range: Range;
}

interface Mirrored {
  /** The virtual document's workspace path. */
  virtualPath: string;
  version: number;
  document: NotebookVirtualDocument;
}

export interface NotebookLanguageDocumentsOptions {
  notebooks: NotebookCellsSource;
  server: VirtualDocumentSink;
}

/** Whether a notebook's cells are Python: its kernel says so, or names no language (Kiln's default kernel is Python). */
function isPython(language: string | null): boolean {
  return language === null || language.toLowerCase() === 'python';
}

export class NotebookLanguageDocuments implements IDisposable {
  private readonly mirrored = new Map<string, Mirrored>();
  private readonly byVirtual = new Map<string, string>();
  private readonly subscriptions = new DisposableStore();
  private readonly forgotten = new Emitter<string>();
  /** A notebook is no longer mirrored (closed, moved, not Python): its diagnostics go. */
  readonly onDidForget: Event<string> = this.forgotten.event;

  constructor(private readonly options: NotebookLanguageDocumentsOptions) {
    this.subscriptions.add(
      options.notebooks.onDidChangeCells((change) => {
        if (change.kind === 'closed') this.forget(change.path);
        else if (change.kind === 'moved') {
          // A new name is a new document for the server: its diagnostics follow under the new name.
          this.forget(change.from);
          this.sync(change.path);
        } else this.sync(change.path);
      }),
    );
  }

  /** The virtual document's workspace path for a notebook path (whether or not it is mirrored). */
  virtualPathOf(notebookPath: string): string {
    return notebookPath + VIRTUAL_SUFFIX;
  }

  /** The notebook a virtual document stands for, or null for any other path (a real file). */
  notebookOf(virtualPath: string): string | null {
    return this.byVirtual.get(virtualPath) ?? null;
  }

  /** Whether a path names a notebook's virtual document, mirrored or not (a late answer about a closed notebook). */
  isVirtual(somePath: string): boolean {
    return somePath.endsWith(VIRTUAL_SUFFIX);
  }

  /** The text the server holds for a virtual document now; null for a path that is no mirrored notebook. */
  textOf(virtualPath: string): string | null {
    const notebookPath = this.byVirtual.get(virtualPath);
    return (notebookPath && this.mirrored.get(notebookPath)?.document.text) ?? null;
  }

  /** A notebook's code cells' sources by id, as the notebook holds them now; null when it is not open. */
  cellSources(notebookPath: string): Map<string, string> | null {
    const code = this.options.notebooks.codeCells(notebookPath);
    return code ? new Map(code.cells.map((c) => [c.id, c.source])) : null;
  }

  /** The notebooks mirrored now. */
  paths(): string[] {
    return [...this.mirrored.keys()];
  }

  /** Mirrors the notebook as it is now (opens it on the server if new). A notebook not open or not Python is dropped. */
  sync(notebookPath: string): void {
    const code = this.options.notebooks.codeCells(notebookPath);
    if (!code || !isPython(code.language)) {
      this.forget(notebookPath);
      return;
    }
    const document = new NotebookVirtualDocument(code.cells);
    const current = this.mirrored.get(notebookPath);
    if (current) {
      // Saves and output-only changes announce the notebook too: the server hears only of new text.
      const textChanged = current.document.text !== document.text;
      current.document = document;
      if (!textChanged) return;
      current.version += 1;
      this.options.server.didChange(current.virtualPath, current.version, [{ text: document.text }]);
      return;
    }
    const virtualPath = this.virtualPathOf(notebookPath);
    this.mirrored.set(notebookPath, { virtualPath, version: 1, document });
    this.byVirtual.set(virtualPath, notebookPath);
    this.options.server.didOpen(virtualPath, 1, document.text);
  }

  /** Stops mirroring a notebook (closed, moved away, no longer Python). */
  forget(notebookPath: string): void {
    const current = this.mirrored.get(notebookPath);
    if (!current) return;
    this.mirrored.delete(notebookPath);
    this.byVirtual.delete(current.virtualPath);
    this.options.server.didClose(current.virtualPath);
    this.forgotten.fire(notebookPath);
  }

  /** The virtual document and position for a position in a notebook's cell; null when the cell is not mirrored. */
  toServer(notebookPath: string, cell: string, position: Position): { path: string; position: Position } | null {
    const current = this.mirrored.get(notebookPath);
    const mapped = current?.document.toDocument({ cellId: cell, ...position });
    return current && mapped ? { path: current.virtualPath, position: mapped } : null;
  }

  /** A cell's range in the server's document (for code actions on a selection). */
  rangeToServer(notebookPath: string, cell: string, range: Range): Range | null {
    return this.mirrored.get(notebookPath)?.document.rangeToDocument({ cellId: cell, range }) ?? null;
  }

  /** The notebook cell a range of a virtual document lies in; null for a path that is not a mirrored notebook. */
  placeOf(virtualPath: string, range: Range): NotebookPlace | null {
    const notebookPath = this.byVirtual.get(virtualPath);
    const placed = notebookPath ? this.mirrored.get(notebookPath)?.document.rangeToCell(range) : null;
    return notebookPath && placed ? { path: notebookPath, cell: placed.cellId, range: placed.range } : null;
  }

  /**
   * A virtual document's diagnostics, each moved to its cell (with `cell` set). What is right for a file and
   * wrong for a notebook is dropped: the value a cell's last expression shows is not an unused expression,
   * IPython awaits at the top level, and re-running a changed definition in a later cell is how notebooks work.
   * Null for a path that is no mirrored notebook, or for diagnostics of an older version (check `isVirtual` first).
   */
  diagnosticsOf<D extends ServerDiagnostic>(
    virtualPath: string,
    diagnostics: readonly D[],
    version?: number | null,
  ): { path: string; diagnostics: (D & { cell: string })[] } | null {
    const notebookPath = this.byVirtual.get(virtualPath);
    const current = notebookPath ? this.mirrored.get(notebookPath) : null;
    // Computed for text the notebook no longer has: its lines may have moved; the server's next answer will come.
    if (!notebookPath || !current || (version != null && version !== current.version)) return null;
    const document = current.document;
    const out: (D & { cell: string })[] = [];
    for (const diagnostic of diagnostics) {
      const placed = document.rangeToCell(diagnostic.range);
      if (!placed) continue;
      if (diagnostic.code === 'reportRedeclaration') continue;
      if (/"await" allowed only within async function/.test(diagnostic.message)) continue;
      if (
        diagnostic.code === 'reportUnusedExpression' &&
        placed.range.end.line === document.lastCodeLine(placed.cellId)
      )
        continue;
      out.push({ ...diagnostic, range: placed.range, cell: placed.cellId });
    }
    return { path: notebookPath, diagnostics: out };
  }

  dispose(): void {
    this.subscriptions.dispose();
    this.forgotten.dispose();
    for (const notebookPath of [...this.mirrored.keys()]) this.forget(notebookPath);
  }
}

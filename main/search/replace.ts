import { Emitter, type Event } from '../../shared/base/event';
import type {
  EventPayload,
  NotebookDocument,
  ReplaceFileOutcome,
  SearchMatch,
  SearchQuery,
} from '../../shared/contract';
import { KilnError } from '../../shared/errors';
import { replaceMatches, type ReplacedText } from '../../shared/replace';
import { toWireError } from '../errors';
import { logListenerError } from '../events';
import type { Workspace } from '../workspace';
import { notebookSourceSpans, rewriteSource, sourceText } from './notebook-source-spans';
import { toRegExp } from './query';

export interface ReplaceServiceOptions {
  workspace: Pick<Workspace, 'read' | 'write'>;
  notebooks: {
    isOpen(rel: string): boolean;
    get(rel: string): Promise<NotebookDocument>;
    editCells(rel: string, edits: { cellId: string; source: string }[]): Promise<unknown>;
  };
}

interface FileToReplace {
  path: string;
  matches: SearchMatch[];
}

/** What a replace wrote, to put back on "Undo Replace". */
interface Written {
  path: string;
  before: string;
  afterHash: string;
}

/** Undo is offered for the last few replaces; local history keeps every one of them anyway. */
const UNDO_KEPT = 10;

/**
 * Replace in Files. Each file is read again and each match replaced only where it still is; a file whose matches
 * moved since the search is refused whole, and the write itself refuses if the disk changes while it runs. Writes
 * go through the workspace (local history keeps the previous content; the feed reports `updated`, origin
 * operator). A notebook's cell sources alone are rewritten, every other byte kept; an open notebook with unsaved
 * changes takes the replacement in its model and stays unsaved, as VS Code edits an open document's model.
 */
export class ReplaceService {
  private readonly undo = new Map<string, Written[]>();
  private sequence = 0;

  private readonly notebookEditEmitter = new Emitter<EventPayload<'notebook.changed'>>({
    onListenerError: logListenerError,
  });
  /** An open notebook's model took a replacement (it stays unsaved): its views reload the document. */
  readonly onDidEditNotebook: Event<EventPayload<'notebook.changed'>> = this.notebookEditEmitter.event;

  constructor(private readonly options: ReplaceServiceOptions) {}

  async replace(
    query: SearchQuery,
    replacement: string,
    files: FileToReplace[],
  ): Promise<{ replaceId: string; files: ReplaceFileOutcome[] }> {
    const regex = toRegExp({
      pattern: query.pattern,
      isRegex: query.isRegex ?? false,
      matchCase: query.matchCase ?? false,
      wholeWord: query.wholeWord ?? false,
    });
    const apply = (text: string, matches: SearchMatch[]) =>
      replaceMatches(text, matches, regex, replacement, query.isRegex ?? false);
    const outcomes: ReplaceFileOutcome[] = [];
    const written: Written[] = [];
    for (const file of files) {
      try {
        outcomes.push(await this.replaceInFile(file, apply, written));
      } catch (err) {
        outcomes.push({ path: file.path, status: 'refused', replaced: 0, message: toWireError(err).message });
      }
    }
    const replaceId = `replace-${++this.sequence}`;
    if (written.length) {
      this.undo.set(replaceId, written);
      for (const old of [...this.undo.keys()].slice(0, -UNDO_KEPT)) this.undo.delete(old);
    }
    return { replaceId, files: outcomes };
  }

  /** Writes back what the replace found, in each file that still holds exactly what the replace wrote. */
  async undoReplace(replaceId: string): Promise<{ files: ReplaceFileOutcome[] }> {
    const written = this.undo.get(replaceId);
    if (!written)
      throw new KilnError('E_NOT_FOUND', 'That replace can no longer be undone here: use the Timeline (local history)');
    this.undo.delete(replaceId);
    const files: ReplaceFileOutcome[] = [];
    for (const { path, before, afterHash } of written) {
      try {
        await this.options.workspace.write(path, before, { origin: 'operator', expectedHash: afterHash });
        files.push({ path, status: 'written', replaced: 0 });
      } catch (err) {
        const message =
          toWireError(err).code === 'E_CHANGED_ON_DISK'
            ? `${path} changed after the replace; restore it from the Timeline (local history)`
            : toWireError(err).message;
        files.push({ path, status: 'refused', replaced: 0, message });
      }
    }
    return { files };
  }

  private async replaceInFile(
    file: FileToReplace,
    apply: (text: string, matches: SearchMatch[]) => ReplacedText,
    written: Written[],
  ): Promise<ReplaceFileOutcome> {
    const { path } = file;
    const inCells = file.matches.some((m) => m.cell);
    if (inCells && this.options.notebooks.isOpen(path)) {
      const document = await this.options.notebooks.get(path);
      if (document.dirty) return this.replaceInModel(path, document, file.matches, apply);
    }
    const content = await this.options.workspace.read(path);
    if (content.text === null || content.truncated)
      return refused(path, `${path} is binary or too large to replace in`);
    const result = inCells ? replaceInNotebook(content.text, file.matches, apply) : apply(content.text, file.matches);
    if (!result) return refused(path, `${path} is no longer a notebook Kiln can read; search again`);
    if (result.stale) return changedSinceSearch(path, result.stale, file.matches.length);
    const after = await this.options.workspace.write(path, result.text, {
      origin: 'operator',
      expectedHash: content.hash,
    });
    written.push({ path, before: content.text, afterHash: after.hash });
    return { path, status: 'written', replaced: result.replaced };
  }

  private async replaceInModel(
    path: string,
    document: NotebookDocument,
    matches: SearchMatch[],
    apply: (text: string, matches: SearchMatch[]) => ReplacedText,
  ): Promise<ReplaceFileOutcome> {
    const edits: { cellId: string; source: string }[] = [];
    let replaced = 0;
    for (const [index, onCell] of byCell(matches)) {
      const cell = document.cells[index];
      const id = onCell[0].cell?.id;
      if (!cell || (id !== undefined && cell.id !== id)) return changedSinceSearch(path, onCell.length, matches.length);
      const result = apply(cell.source, onCell);
      if (result.stale) return changedSinceSearch(path, result.stale, matches.length);
      edits.push({ cellId: cell.id, source: result.text });
      replaced += result.replaced;
    }
    await this.options.notebooks.editCells(path, edits);
    this.notebookEditEmitter.fire({ path, document: await this.options.notebooks.get(path), reason: 'edited' });
    return { path, status: 'model', replaced };
  }
}

function refused(path: string, message: string): ReplaceFileOutcome {
  return { path, status: 'refused', replaced: 0, message };
}

function changedSinceSearch(path: string, stale: number, total: number): ReplaceFileOutcome {
  const what = stale === total ? 'its matches are' : `${stale} of its ${total} matches are`;
  return refused(
    path,
    `${path} changed since the search (${what} no longer where they were); nothing replaced: search again`,
  );
}

function byCell(matches: SearchMatch[]): Map<number, SearchMatch[]> {
  const cells = new Map<number, SearchMatch[]>();
  for (const match of matches) {
    const index = match.cell?.index ?? -1;
    cells.set(index, [...(cells.get(index) ?? []), match]);
  }
  return cells;
}

/** Replaces in cell sources only, splicing each rewritten source token into the text; null if not a notebook. */
function replaceInNotebook(
  text: string,
  matches: SearchMatch[],
  apply: (text: string, matches: SearchMatch[]) => ReplacedText,
): ReplacedText | null {
  const spans = notebookSourceSpans(text);
  if (!spans) return null;
  const splices: { start: number; end: number; text: string }[] = [];
  let replaced = 0;
  let stale = 0;
  for (const [index, onCell] of byCell(matches)) {
    const span = spans[index];
    if (!span) {
      stale += onCell.length;
      continue;
    }
    const result = apply(sourceText(text, span), onCell);
    stale += result.stale;
    replaced += result.replaced;
    if (result.replaced)
      splices.push({ start: span.start, end: span.end, text: rewriteSource(text, span, result.text) });
  }
  splices.sort((a, b) => b.start - a.start);
  let next = text;
  for (const s of splices) next = next.slice(0, s.start) + s.text + next.slice(s.end);
  return { text: next, replaced, stale };
}

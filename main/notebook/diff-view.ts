import type {
  NotebookDiffCell,
  NotebookDiffResult,
  NotebookDiffSide,
  NotebookOutput,
  notebookDiffRequests,
} from '../../shared/contract';
import type { CellDiff, NotebookDiff, NotebookDiffOptions } from '../../shared/notebook-diff';
import { KilnError } from '../../shared/errors';
import type { HandlersFor } from '../router';
import type { Workspace } from '../workspace';
import { exactNumberPointers } from './exact-json';
import { joinLines, type CellJson, type NotebookJson } from './format';
import { diffNotebookTexts, diffParsedPair, parseNotebookSide, type ParsedPair } from './partial-apply';
import type { NotebookService } from './service';

/*
 * The `notebook.diff` channel: main parses both notebooks exactly (numbers as written, as partial apply does)
 * and diffs them; the view gets the diff and the cells to draw, so the renderer never parses notebook JSON.
 */

/** Where a `path` side comes from: the open notebook's unsaved state, else the file. */
export interface NotebookDiffSources {
  /** The open notebook's bytes as a save would write them; null when it is clean, undefined when not open. */
  unsavedText(rel: string): string | null | undefined;
  readFile(rel: string): Promise<string>;
  /** The file at git HEAD; null when HEAD has none. */
  readHead(rel: string): Promise<string | null>;
}

/** What a notebook HEAD lacks is compared with: no cells, so every cell shows as added. */
const EMPTY_NOTEBOOK = JSON.stringify({ cells: [], metadata: {}, nbformat: 4, nbformat_minor: 5 });

/** The app's sources: main's open notebooks (their hot-exit bytes are what a save would write) and the workspace. */
export function notebookDiffSources(
  notebooks: NotebookService,
  workspace: Workspace,
  readHead: (rel: string) => Promise<string | null>,
): NotebookDiffSources {
  return {
    readHead,
    unsavedText: (rel) => notebooks.unsavedText(rel),
    readFile: async (rel) => {
      const file = await workspace.read(rel);
      if (file.text === null || file.truncated) {
        const reason = `${rel} is ${file.text === null ? 'not text' : 'too large to read whole'}`;
        throw new KilnError('E_INVALID_NOTEBOOK', `Cannot compare: ${reason}`, { reason });
      }
      return file.text;
    },
  };
}

async function sideText(
  side: NotebookDiffSide,
  sources: NotebookDiffSources,
): Promise<{ text: string; unsaved: boolean }> {
  if ('text' in side) return { text: side.text, unsaved: false };
  if ('file' in side) return { text: await sources.readFile(side.file), unsaved: false };
  if ('head' in side) return { text: (await sources.readHead(side.head)) ?? EMPTY_NOTEBOOK, unsaved: false };
  const unsaved = sources.unsavedText(side.path);
  if (typeof unsaved === 'string') return { text: unsaved, unsaved: true };
  return { text: await sources.readFile(side.path), unsaved: false };
}

async function parsedSide(
  side: NotebookDiffSide,
  name: 'base' | 'new',
  sources: NotebookDiffSources,
): Promise<{ notebook: NotebookJson; unsaved: boolean }> {
  const { text, unsaved } = await sideText(side, sources);
  return { notebook: parseNotebookSide(text, name), unsaved };
}

/**
 * The cells whose outputs are sent: on the new side those the view draws (outputs changed, or the cell added);
 * on the old side every changed cell's, as "Restore this cell" puts the old cell back whole.
 */
function outputIndexes(cells: readonly CellDiff[], side: 'oldIndex' | 'newIndex'): Set<number> {
  const shown = new Set<number>();
  for (const cell of cells) {
    const index = cell[side];
    if (index === null || cell.status === 'unchanged') continue;
    if (side === 'oldIndex' || cell.status === 'added' || cell.kinds.includes('outputs')) shown.add(index);
  }
  return shown;
}

export function viewCell(cell: CellJson, withOutputs: boolean): NotebookDiffCell {
  const isCode = cell.cell_type === 'code';
  const outputs = withOutputs && isCode && Array.isArray(cell.outputs) ? (cell.outputs as NotebookOutput[]) : [];
  const count = isCode && typeof cell.execution_count === 'number' ? cell.execution_count : null;
  const metadata = cell.metadata && typeof cell.metadata === 'object' ? (cell.metadata as Record<string, unknown>) : {};
  const view: NotebookDiffCell = {
    id: typeof cell.id === 'string' ? cell.id : null,
    cell_type: typeof cell.cell_type === 'string' ? cell.cell_type : 'raw',
    source: joinLines(cell.source),
    metadata,
    outputs,
    outputsSent: withOutputs,
    execution_count: count,
  };
  if (cell.attachments && typeof cell.attachments === 'object')
    view.attachments = cell.attachments as NotebookDiffCell['attachments'];
  const exactNumbers = exactNumberPointers({ metadata: cell.metadata, outputs, attachments: cell.attachments });
  if (exactNumbers) view.exactNumbers = exactNumbers;
  return view;
}

/** The diff of two notebook texts with the cells the view draws. E_INVALID_NOTEBOOK names the side at fault. */
export function notebookDiffView(
  baseText: string,
  nextText: string,
  options: Omit<NotebookDiffOptions, 'exactNumberText'> = {},
): Omit<NotebookDiffResult, 'unsaved'> {
  return notebookDiffViewOf(diffNotebookTexts(baseText, nextText, options));
}

/** notebookDiffView of notebooks already parsed and diffed. */
export function notebookDiffViewOf({
  base,
  next,
  diff,
}: ParsedPair & { diff: NotebookDiff }): Omit<NotebookDiffResult, 'unsaved'> {
  const oldShown = outputIndexes(diff.cells, 'oldIndex');
  const newShown = outputIndexes(diff.cells, 'newIndex');
  return {
    diff,
    base: base.cells.map((cell, i) => viewCell(cell, oldShown.has(i))),
    next: next.cells.map((cell, j) => viewCell(cell, newShown.has(j))),
  };
}

export function notebookDiffHandlers(sources: NotebookDiffSources): HandlersFor<keyof typeof notebookDiffRequests> {
  return {
    'notebook.diff': async ({ base, next, options }) => {
      // Each side is parsed as soon as it is read: the working file's parse overlaps git's writing out HEAD.
      const [old, now] = await Promise.allSettled([
        parsedSide(base, 'base', sources),
        parsedSide(next, 'new', sources),
      ]);
      // As one parse of the pair: the base side's failure is the one said when both fail.
      if (old.status === 'rejected') throw old.reason;
      if (now.status === 'rejected') throw now.reason;
      const pair = { base: old.value.notebook, next: now.value.notebook };
      return {
        ...notebookDiffViewOf(diffParsedPair(pair, options)),
        unsaved: { base: old.value.unsaved, next: now.value.unsaved },
      };
    },
  };
}

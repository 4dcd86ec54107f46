import type { NotebookOutput } from '../../shared/contract';
import { KilnError } from '../../shared/errors';
import type { CellDiff, NotebookDiff } from '../../shared/notebook-diff';
import {
  carryExactNumbers,
  compactOutputs,
  joinLines,
  newCellId,
  parseNotebookPair,
  serializeNotebook,
  type CellJson,
  type NotebookJson,
} from '../notebook';

/*
 * A notebook as the Edit assistant's model sees it (cells: id, type, source, outputs summarized as the Agent's
 * verbs summarize them) and as it proposes one (`propose_notebook`: the new cell list, each naming the cell it
 * replaces). Kiln builds the new notebook from the base and that list, so a kept cell keeps its outputs,
 * metadata and number literals, and the model never writes notebook JSON.
 */

export function isNotebookPath(path: string): boolean {
  return path.toLowerCase().endsWith('.ipynb');
}

/** Characters of one output a model sees: enough to read a result, not a dataframe dump. */
const MODEL_OUTPUT_CHARS = 2000;

/**
 * The id a model uses for a base cell: its own id, else (nbformat 4.4 has none) `#N` by position. Positions are
 * of the notebook the model is shown, and a proposal is bound to exactly that notebook, so they map back.
 */
export function modelCellId(cell: CellJson | undefined, index: number): string {
  return typeof cell?.id === 'string' && cell.id !== '' ? cell.id : `#${index + 1}`;
}

function baseNotebook(text: string): NotebookJson {
  return parseNotebookPair(text, text).base;
}

/** One summarized output line per output, as a model reads it. */
function outputLines(cell: CellJson): string[] {
  if (cell.cell_type !== 'code' || !Array.isArray(cell.outputs) || !cell.outputs.length) return [];
  const compact = compactOutputs(cell.outputs as NotebookOutput[], MODEL_OUTPUT_CHARS);
  return compact.map((output) => {
    if (output.output_type === 'stream') return `[${String(output.name)}] ${joinLines(output.text)}`;
    if (output.output_type === 'error') return `[error] ${String(output.ename)}: ${String(output.evalue)}`;
    const data = (output.data ?? {}) as Record<string, unknown>;
    const shown = data['text/plain'] ?? Object.values(data)[0];
    return `[${output.output_type}] ${typeof shown === 'string' ? shown : JSON.stringify(shown)}`;
  });
}

/** The notebook as cells, for the harness prompt and the changed-on-disk note. */
export function notebookForModel(text: string): string {
  const nb = baseNotebook(text);
  if (!nb.cells.length) return '(the notebook has no cells)';
  return nb.cells
    .map((cell, i) => {
      const head = `--- cell ${modelCellId(cell, i)} (${String(cell.cell_type)})`;
      const outputs = outputLines(cell);
      const count = typeof cell.execution_count === 'number' ? ` [${cell.execution_count}]` : '';
      return [head + count, joinLines(cell.source), ...(outputs.length ? ['--- outputs:', ...outputs] : [])].join('\n');
    })
    .join('\n');
}

/** One cell of a `propose_notebook` call. */
export interface ProposedCell {
  /** The id (as shown to the model) of the base cell this one replaces; null or absent for a new cell. */
  replaces?: string | null;
  cell_type: 'code' | 'markdown' | 'raw';
  source: string;
}

/**
 * The notebook a `propose_notebook` call describes, built on the base: a cell that replaces a base cell is that
 * cell (outputs, metadata, id kept) with the proposed type and source; a new cell is empty but for its source;
 * base cells the list does not name are deleted. Throws E_BAD_REQUEST (for the model) on an unknown or repeated id.
 */
export function buildProposedNotebook(baseText: string, proposed: readonly ProposedCell[]): string {
  const base = baseNotebook(baseText);
  const byModelId = new Map(base.cells.map((cell, i) => [modelCellId(cell, i), cell]));
  const withIds = base.nbformat > 4 || (base.nbformat === 4 && (base.nbformat_minor ?? 0) >= 5);
  const taken = new Set(base.cells.map((c) => c.id).filter((id): id is string => typeof id === 'string'));
  const used = new Set<string>();
  const cells = proposed.map((p): CellJson => {
    const ref = p.replaces ?? null;
    if (ref !== null) {
      const old = byModelId.get(ref);
      if (!old) throw new KilnError('E_BAD_REQUEST', `there is no cell "${ref}" in the notebook`);
      if (used.has(ref)) throw new KilnError('E_BAD_REQUEST', `cell "${ref}" is replaced twice`);
      used.add(ref);
      if (joinLines(old.source) === p.source && old.cell_type === p.cell_type) return old;
      const next: CellJson = { ...old, cell_type: p.cell_type, source: p.source };
      if (p.cell_type === 'code') {
        next.outputs ??= [];
        next.execution_count ??= null;
      } else {
        delete next.outputs;
        delete next.execution_count;
      }
      return carryExactNumbers(old, next) as CellJson;
    }
    const cell: CellJson = { cell_type: p.cell_type, metadata: {}, source: p.source } as CellJson;
    if (withIds) cell.id = newCellId(taken);
    else delete (cell as Partial<CellJson>).id;
    if (p.cell_type === 'code') Object.assign(cell, { execution_count: null, outputs: [] });
    return cell;
  });
  return serializeNotebook(carryExactNumbers(base, { ...base, cells }) as NotebookJson);
}

/** A change as the model names it: by the ids it was shown, and the new cell's position. */
export function changeForModel(change: CellDiff, base: NotebookJson): string {
  const old = change.oldIndex !== null ? modelCellId(base.cells[change.oldIndex], change.oldIndex) : null;
  if (change.status === 'added') return `the new cell at position ${(change.newIndex ?? 0) + 1}`;
  if (change.status === 'deleted') return `the deletion of cell ${old}`;
  return `the change to cell ${old} (${change.kinds.join(', ')})`;
}

/** Every change of a diff, for markers and notes, by change id. */
export function describeChanges(diff: NotebookDiff, baseText: string): Map<string, string> {
  const base = baseNotebook(baseText);
  const described = new Map<string, string>();
  for (const change of diff.cells)
    if (change.status !== 'unchanged') described.set(change.changeId, changeForModel(change, base));
  if (diff.notebook) described.set('notebook', 'the notebook metadata change');
  return described;
}

/** The cells' sources one after another: what a notebook proposal's +/- line counts are counted on. */
export function sourcesOf(text: string): string {
  return baseNotebook(text)
    .cells.map((cell) => joinLines(cell.source))
    .join('\n');
}

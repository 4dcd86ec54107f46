import type { NotebookOutput, OutputChange } from '../../shared/contract';
import { joinLines, type CellJson, type Json, type OutputJson } from './format';
import { MAX_JSON_DEPTH, nestsTooDeep } from './exact-json';

/** One output change, addressed to its cell. */
export interface CellOutputChange {
  cellId: string;
  change: OutputChange;
}

/** What the outputs need of their notebook: its cells, and a mark that it changed. */
interface OutputsNotebook {
  readonly cells: CellJson[];
  touch(): void;
}

/**
 * A notebook's outputs as its kernel sends them: the outputs made in this session (consecutive stream text joins
 * into one), the display ids update_display_data addresses, and the cells waiting on clear_output(wait=True).
 */
export class CellOutputs {
  /** Outputs produced by the kernel in this session (a stream may still grow). */
  private readonly fresh = new WeakSet<object>();
  /** display_id -> outputs showing it. */
  private readonly displays = new Map<string, { cell: CellJson; output: OutputJson }[]>();
  /** Cells that asked for clear_output(wait=True): cleared when their next output arrives. */
  private readonly clearPending = new WeakSet<object>();

  constructor(private readonly notebook: OutputsNotebook) {}

  /** Clears one cell's outputs and count (run start, Clear output). Returns whether anything changed. */
  clear(cell: CellJson): boolean {
    if (cell.cell_type !== 'code') return false;
    const had = (cell.outputs?.length ?? 0) > 0 || cell.execution_count != null;
    this.forget(cell);
    this.clearPending.delete(cell);
    cell.outputs = [];
    cell.execution_count = null;
    if (had) this.notebook.touch();
    return had;
  }

  /** Applies one IOPub message of a running cell; returns the changes to announce. */
  apply(cell: CellJson, msgType: string, content: Json): CellOutputChange[] {
    const changes: CellOutputChange[] = [];
    const outputs = (cell.outputs ??= []);
    if (msgType === 'clear_output') {
      if (content.wait) this.clearPending.add(cell);
      else {
        this.forget(cell);
        outputs.length = 0;
        this.notebook.touch();
        changes.push({ cellId: cell.id, change: { kind: 'clear' } });
      }
      return changes;
    }
    if (msgType === 'update_display_data') {
      const displayId = (content.transient as Json | undefined)?.display_id;
      if (typeof displayId === 'string') changes.push(...this.updateDisplay(displayId, content));
      return changes;
    }
    const output = this.outputFrom(msgType, content);
    if (!output) return changes;
    if (this.clearPending.has(cell)) {
      this.clearPending.delete(cell);
      this.forget(cell);
      outputs.length = 0;
      changes.push({ cellId: cell.id, change: { kind: 'clear' } });
    }
    const last = outputs[outputs.length - 1];
    if (
      output.output_type === 'stream' &&
      last &&
      last.output_type === 'stream' &&
      last.name === output.name &&
      this.fresh.has(last)
    ) {
      // Consecutive stream text of one name is one output, as Jupyter shows it.
      last.text = joinLines(last.text) + (output.text as string);
      this.notebook.touch();
      changes.push({
        cellId: cell.id,
        change: { kind: 'appendText', index: outputs.length - 1, text: output.text as string },
      });
      return changes;
    }
    const displayId = (content.transient as Json | undefined)?.display_id;
    if (typeof displayId === 'string') {
      // Showing a display id again also updates the earlier displays of it.
      changes.push(...this.updateDisplay(displayId, content));
      const list = this.displays.get(displayId) ?? [];
      list.push({ cell, output });
      this.displays.set(displayId, list);
    }
    this.fresh.add(output);
    outputs.push(output);
    this.notebook.touch();
    changes.push({ cellId: cell.id, change: { kind: 'append', output: output as NotebookOutput } });
    return changes;
  }

  /** Adds an output Kiln made itself (pager payloads shown as display_data). */
  append(cell: CellJson, output: OutputJson): CellOutputChange {
    (cell.outputs ??= []).push(output);
    this.fresh.add(output);
    this.notebook.touch();
    return { cellId: cell.id, change: { kind: 'append', output: output as NotebookOutput } };
  }

  private outputFrom(msgType: string, content: Json): OutputJson | null {
    const output = outputOf(msgType, content);
    // A notebook nests its outputs five levels deep (notebook, cells, cell, outputs, output); an output deeper than
    // the rest would make a file no reader takes, and overflow every recursive walk of the model on the way.
    if (output && nestsTooDeep(output, MAX_JSON_DEPTH - OUTPUT_NESTING)) return tooDeepOutput(output);
    return output;
  }

  /** update_display_data that arrived outside any running cell (e.g. from a background thread). */
  applyDisplayUpdate(content: Json): CellOutputChange[] {
    const displayId = (content.transient as Json | undefined)?.display_id;
    return typeof displayId === 'string' ? this.updateDisplay(displayId, content) : [];
  }

  private updateDisplay(displayId: string, content: Json): CellOutputChange[] {
    const changes: CellOutputChange[] = [];
    const targets = this.displays.get(displayId) ?? [];
    const alive = targets.filter(
      ({ cell, output }) => this.notebook.cells.includes(cell) && (cell.outputs ?? []).includes(output),
    );
    this.displays.set(displayId, alive);
    const update = { data: (content.data as Json) ?? {}, metadata: (content.metadata as Json) ?? {} };
    const { data, metadata } = nestsTooDeep(update, MAX_JSON_DEPTH - OUTPUT_NESTING) ? tooDeepOutput(update) : update;
    for (const { cell, output } of alive) {
      output.data = data;
      output.metadata = metadata;
      const index = cell.outputs!.indexOf(output);
      this.notebook.touch();
      changes.push({ cellId: cell.id, change: { kind: 'replace', index, output: output as NotebookOutput } });
    }
    return changes;
  }

  /** The cell's outputs are gone (cleared, deleted, moved to another cell): no display id addresses them. */
  forget(cell: CellJson): void {
    for (const [id, list] of this.displays) {
      const kept = list.filter((entry) => entry.cell !== cell);
      if (kept.length) this.displays.set(id, kept);
      else this.displays.delete(id);
    }
  }
}

/** Levels above an output's fields in a notebook: notebook, cells, cell, outputs, the output itself. */
const OUTPUT_NESTING = 5;

/** What stands in for an output nested too deep to keep: a line that says so, where the output was. */
function tooDeepOutput(output: object): OutputJson {
  const text = `Output not kept: its JSON nests deeper than ${MAX_JSON_DEPTH - OUTPUT_NESTING} levels, more than a notebook file can hold.`;
  const base = output as OutputJson;
  if (base.output_type === 'execute_result')
    return {
      output_type: 'execute_result',
      data: { 'text/plain': text },
      metadata: {},
      execution_count: base.execution_count ?? null,
    };
  return { output_type: 'display_data', data: { 'text/plain': text }, metadata: {} };
}

/** The output an IOPub message of a running cell makes; null for a message that makes none. */
function outputOf(msgType: string, content: Json): OutputJson | null {
  switch (msgType) {
    case 'stream':
      return { output_type: 'stream', name: String(content.name ?? 'stdout'), text: String(content.text ?? '') };
    case 'display_data':
      return {
        output_type: 'display_data',
        data: (content.data as Json) ?? {},
        metadata: (content.metadata as Json) ?? {},
      };
    case 'execute_result':
      return {
        output_type: 'execute_result',
        data: (content.data as Json) ?? {},
        metadata: (content.metadata as Json) ?? {},
        execution_count: typeof content.execution_count === 'number' ? content.execution_count : null,
      };
    case 'error':
      return {
        output_type: 'error',
        ename: String(content.ename ?? ''),
        evalue: String(content.evalue ?? ''),
        traceback: Array.isArray(content.traceback) ? content.traceback.map(String) : [],
      };
    default:
      return null;
  }
}

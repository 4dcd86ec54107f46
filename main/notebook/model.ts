import type { CellType, NotebookCell, NotebookOutput, OutputChange } from '../../shared/contract';
import { KilnError } from '../../shared/errors';
import {
  CURRENT_MINOR,
  joinLines,
  newCellId,
  splitLines,
  type CellJson,
  type Json,
  type NotebookJson,
  type OutputJson,
} from './format';

/** One output change, addressed to its cell. */
export interface CellOutputChange {
  cellId: string;
  change: OutputChange;
}

/**
 * The in-memory notebook: the JSON as read (so unknown fields survive), plus what Kiln needs to write it back
 * as Jupyter would. Outputs produced in this session are kept as the kernel sent them and split into lines on save.
 */
export class NotebookModel {
  /** Follows the file across renames and moves (the service re-keys it from the change feed). */
  path: string;
  json: NotebookJson;
  dirty = false;
  rev = 0;
  diskHash: string;
  warnings: string[];
  private readonly ids = new Set<string>();
  /** Outputs produced by the kernel in this session (a stream may still grow). */
  private readonly fresh = new WeakSet<object>();
  /** display_id -> outputs showing it. */
  private readonly displays = new Map<string, { cell: CellJson; output: OutputJson }[]>();
  /** Cells that asked for clear_output(wait=True): cleared when their next output arrives. */
  private readonly clearPending = new WeakSet<object>();

  constructor(path: string, json: NotebookJson, diskHash: string, warnings: string[], dirty = false) {
    this.path = path;
    this.json = json;
    this.diskHash = diskHash;
    this.warnings = warnings;
    this.dirty = dirty;
    for (const cell of json.cells) this.ids.add(cell.id);
  }

  get cells(): CellJson[] {
    return this.json.cells;
  }

  touch(): void {
    this.rev += 1;
    this.dirty = true;
  }

  indexOf(cellId: string): number {
    const index = this.json.cells.findIndex((c) => c.id === cellId);
    if (index < 0) throw new KilnError('E_NOT_FOUND', `No cell with id "${cellId}" in ${this.path}`, { cellId });
    return index;
  }

  cell(cellId: string): CellJson {
    return this.json.cells[this.indexOf(cellId)];
  }

  sourceOf(cell: CellJson): string {
    return joinLines(cell.source);
  }

  // --- document operations ------------------------------------------------------------------

  insertCell(index: number | undefined, cellType: CellType, source: string): { cell: CellJson; index: number } {
    const at = index === undefined ? this.json.cells.length : Math.min(Math.max(0, index), this.json.cells.length);
    const cell: CellJson =
      cellType === 'code'
        ? {
            cell_type: 'code',
            execution_count: null,
            id: newCellId(this.ids),
            metadata: {},
            outputs: [],
            source: splitLines(source),
          }
        : { cell_type: cellType, id: newCellId(this.ids), metadata: {}, source: splitLines(source) };
    this.json.cells.splice(at, 0, cell);
    this.touch();
    return { cell, index: at };
  }

  editSource(cellId: string, source: string): void {
    const cell = this.cell(cellId);
    this.requireKnownType(cell);
    cell.source = splitLines(source);
    this.touch();
  }

  setCellType(cellId: string, cellType: CellType): void {
    const cell = this.cell(cellId);
    this.requireKnownType(cell);
    if (cell.cell_type === cellType) return;
    if (cellType === 'code') {
      cell.outputs = [];
      cell.execution_count = null;
      delete cell.attachments;
    } else {
      this.forgetDisplays(cell);
      delete cell.outputs;
      delete cell.execution_count;
    }
    cell.cell_type = cellType;
    this.touch();
  }

  moveCell(cellId: string, toIndex: number): void {
    const from = this.indexOf(cellId);
    const [cell] = this.json.cells.splice(from, 1);
    const to = Math.min(Math.max(0, toIndex), this.json.cells.length);
    this.json.cells.splice(to, 0, cell);
    if (from !== to) this.touch();
  }

  deleteCell(cellId: string): { cell: CellJson; index: number } {
    const index = this.indexOf(cellId);
    const [cell] = this.json.cells.splice(index, 1);
    this.forgetDisplays(cell);
    this.ids.delete(cell.id);
    this.touch();
    return { cell, index };
  }

  /** Puts back a cell the renderer deleted (undo), keeping its id unless another cell took it meanwhile. */
  restoreCell(wire: NotebookCell, index: number): CellJson {
    const cell: CellJson = {
      cell_type: wire.cell_type,
      id: this.ids.has(wire.id) ? newCellId(this.ids) : wire.id,
      metadata: structuredClone(wire.metadata),
      source: splitLines(wire.source),
    };
    this.ids.add(cell.id);
    if (wire.cell_type === 'code') {
      cell.outputs = structuredClone(wire.outputs) as OutputJson[];
      cell.execution_count = wire.execution_count;
    }
    if (wire.attachments) cell.attachments = structuredClone(wire.attachments);
    this.json.cells.splice(Math.min(index, this.json.cells.length), 0, cell);
    this.touch();
    return cell;
  }

  setCellMetadata(cellId: string, metadata: Json): void {
    this.cell(cellId).metadata = structuredClone(metadata);
    this.touch();
  }

  setKernelspec(spec: { name: string; display_name: string; language: string }): void {
    this.json.metadata = { ...this.json.metadata, kernelspec: spec };
    this.touch();
  }

  // --- outputs --------------------------------------------------------------------------------

  /** Clears one cell's outputs and count (run start, Clear output). Returns whether anything changed. */
  clearOutputs(cell: CellJson): boolean {
    if (cell.cell_type !== 'code') return false;
    const had = (cell.outputs?.length ?? 0) > 0 || cell.execution_count != null;
    this.forgetDisplays(cell);
    this.clearPending.delete(cell);
    cell.outputs = [];
    cell.execution_count = null;
    if (had) this.touch();
    return had;
  }

  setExecutionCount(cell: CellJson, count: number | null): void {
    cell.execution_count = count;
    this.touch();
  }

  /** Applies one IOPub message of a running cell; returns the changes to announce. */
  applyOutput(cell: CellJson, msgType: string, content: Json): CellOutputChange[] {
    const changes: CellOutputChange[] = [];
    const outputs = (cell.outputs ??= []);
    if (msgType === 'clear_output') {
      if (content.wait) this.clearPending.add(cell);
      else {
        this.forgetDisplays(cell);
        outputs.length = 0;
        this.touch();
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
      this.forgetDisplays(cell);
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
      this.touch();
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
    this.touch();
    changes.push({ cellId: cell.id, change: { kind: 'append', output: output as NotebookOutput } });
    return changes;
  }

  /** Adds an output Kiln made itself (pager payloads shown as display_data). */
  appendOutput(cell: CellJson, output: OutputJson): CellOutputChange {
    (cell.outputs ??= []).push(output);
    this.fresh.add(output);
    this.touch();
    return { cellId: cell.id, change: { kind: 'append', output: output as NotebookOutput } };
  }

  private outputFrom(msgType: string, content: Json): OutputJson | null {
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

  /** update_display_data that arrived outside any running cell (e.g. from a background thread). */
  applyDisplayUpdate(content: Json): CellOutputChange[] {
    const displayId = (content.transient as Json | undefined)?.display_id;
    return typeof displayId === 'string' ? this.updateDisplay(displayId, content) : [];
  }

  private updateDisplay(displayId: string, content: Json): CellOutputChange[] {
    const changes: CellOutputChange[] = [];
    const targets = this.displays.get(displayId) ?? [];
    const alive = targets.filter(
      ({ cell, output }) => this.json.cells.includes(cell) && (cell.outputs ?? []).includes(output),
    );
    this.displays.set(displayId, alive);
    for (const { cell, output } of alive) {
      output.data = (content.data as Json) ?? {};
      output.metadata = (content.metadata as Json) ?? {};
      const index = cell.outputs!.indexOf(output);
      this.touch();
      changes.push({ cellId: cell.id, change: { kind: 'replace', index, output: output as NotebookOutput } });
    }
    return changes;
  }

  private forgetDisplays(cell: CellJson): void {
    for (const [id, list] of this.displays) {
      const kept = list.filter((entry) => entry.cell !== cell);
      if (kept.length) this.displays.set(id, kept);
      else this.displays.delete(id);
    }
  }

  requireKnownType(cell: CellJson): void {
    if (!['code', 'markdown', 'raw'].includes(cell.cell_type)) {
      throw new KilnError(
        'E_BAD_REQUEST',
        `Cell "${cell.id}" is a "${cell.cell_type}" cell from a newer nbformat; Kiln keeps it but cannot edit it`,
      );
    }
  }

  // --- projection and disk form -------------------------------------------------------------

  wireCell(cell: CellJson): NotebookCell {
    const isCode = cell.cell_type === 'code';
    const wire: NotebookCell = {
      id: cell.id,
      cell_type: cell.cell_type,
      source: joinLines(cell.source),
      metadata: structuredClone(cell.metadata ?? {}),
      outputs: isCode ? (structuredClone(cell.outputs ?? []) as NotebookOutput[]) : [],
      execution_count: isCode ? (cell.execution_count ?? null) : null,
    };
    if (cell.attachments && typeof cell.attachments === 'object')
      wire.attachments = structuredClone(cell.attachments) as NotebookCell['attachments'];
    return wire;
  }

  /** The JSON to write (serializeNotebook puts it in nbformat's line form); an older minor becomes 4.5 so the cell ids persist. */
  diskJson(): NotebookJson {
    return this.json.nbformat_minor < CURRENT_MINOR ? { ...this.json, nbformat_minor: CURRENT_MINOR } : this.json;
  }
}

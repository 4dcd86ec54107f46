import type { CellType, NotebookCell, NotebookOutput } from '../../shared/contract';
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
import { carryExactNumbers, exactNumberPointers, restoreExactNumbers } from './exact-json';
import { CellOutputs, type CellOutputChange } from './cell-outputs';

export type { CellOutputChange } from './cell-outputs';

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
  /**
   * The minor version of a file with no cell ids (nbformat 4.0-4.4 as nbformat writes it), until a write upgrades
   * it; null otherwise. A write that keeps the file's format (the Agent's) writes it so, ids left in memory.
   */
  idlessMinor: number | null = null;
  private readonly ids = new Set<string>();
  /** The kernel's outputs: this session's, the display ids and pending clears. */
  private readonly outputs = new CellOutputs(this);

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
    const cell = this.cellFromWire(wire, true);
    this.json.cells.splice(Math.min(index, this.json.cells.length), 0, cell);
    this.touch();
    return cell;
  }

  // --- several cells at once (paste, a selection, merge, split) -------------------------------

  /** Inserts cells as one block (a paste, or an undo putting cells back); `keepIds` keeps ids that are free. */
  insertCells(index: number, wires: NotebookCell[], keepIds: boolean): { cells: CellJson[]; index: number } {
    const at = Math.min(Math.max(0, index), this.json.cells.length);
    const cells = wires.map((wire) => this.cellFromWire(wire, keepIds));
    this.json.cells.splice(at, 0, ...cells);
    this.touch();
    return { cells, index: at };
  }

  /** Deletes cells; returns them with the indexes they had, in document order. */
  deleteCells(cellIds: readonly string[]): { cell: CellJson; index: number }[] {
    const indexes = [...new Set(cellIds.map((id) => this.indexOf(id)))].sort((a, b) => a - b);
    const removed = indexes.map((index) => ({ cell: this.json.cells[index], index }));
    for (let i = indexes.length - 1; i >= 0; i--) this.json.cells.splice(indexes[i], 1);
    for (const { cell } of removed) {
      this.forgetDisplays(cell);
      this.ids.delete(cell.id);
    }
    this.touch();
    return removed;
  }

  /** Moves cells, in document order, as one block whose first cell lands at `toIndex` of the resulting list. */
  moveCells(cellIds: readonly string[], toIndex: number): boolean {
    for (const id of cellIds) this.indexOf(id);
    const moving = new Set(cellIds);
    const picked = this.json.cells.filter((c) => moving.has(c.id));
    const rest = this.json.cells.filter((c) => !moving.has(c.id));
    const to = Math.min(Math.max(0, toIndex), rest.length);
    const next = [...rest.slice(0, to), ...picked, ...rest.slice(to)];
    if (next.every((cell, i) => cell === this.json.cells[i])) return false;
    this.json.cells.splice(0, this.json.cells.length, ...next);
    this.touch();
    return true;
  }

  /**
   * JupyterLab's merge: the sources joined by a blank line into the primary cell (its id, type and metadata),
   * which takes the first cell's place; a code cell's outputs are cleared. One cell merges with the one below.
   */
  mergeCells(
    cellIds: readonly string[],
    primaryId?: string,
  ): { cell: CellJson; index: number; removed: { cell: CellJson; index: number }[] } {
    const indexes = [...new Set(cellIds.map((id) => this.indexOf(id)))].sort((a, b) => a - b);
    if (indexes.length === 1) {
      if (indexes[0] + 1 >= this.json.cells.length)
        throw new KilnError('E_BAD_REQUEST', 'The last cell has no cell below to merge with');
      indexes.push(indexes[0] + 1);
    }
    const cells = indexes.map((i) => this.json.cells[i]);
    for (const cell of cells) this.requireKnownType(cell);
    const primary = cells.find((c) => c.id === primaryId) ?? cells[0];
    const source = cells.map((c) => joinLines(c.source)).join('\n\n');
    const attachments: Json = {};
    for (const cell of cells)
      if (cell.cell_type !== 'code' && cell.attachments) Object.assign(attachments, cell.attachments);
    const removed = this.deleteCells(cells.filter((c) => c !== primary).map((c) => c.id));
    this.json.cells.splice(this.json.cells.indexOf(primary), 1);
    this.json.cells.splice(indexes[0], 0, primary);
    primary.source = splitLines(source);
    if (primary.cell_type === 'code') this.clearOutputs(primary);
    else if (Object.keys(attachments).length) primary.attachments = attachments;
    this.touch();
    return { cell: primary, index: indexes[0], removed };
  }

  /**
   * JupyterLab's split at the cursor: parts between the offsets, trimmed of leading and trailing newlines. The
   * first part keeps the cell (and its id); a code cell's outputs and count go with the last part.
   */
  splitCell(cellId: string, offsets: readonly number[]): { cells: CellJson[]; index: number } {
    const index = this.indexOf(cellId);
    const cell = this.json.cells[index];
    this.requireKnownType(cell);
    const text = joinLines(cell.source);
    const cuts = offsets.map((o) => Math.min(o, text.length)).sort((a, b) => a - b);
    const bounds = [0, ...cuts, text.length];
    const sources = bounds.slice(0, -1).map((start, i) =>
      text
        .slice(start, bounds[i + 1])
        .replace(/^\n+/, '')
        .replace(/\n+$/, ''),
    );
    const attachments = (cell.attachments ?? {}) as Json;
    const partAttachments = (source: string, first: boolean): Json | undefined => {
      const names = Object.keys(attachments).filter(
        (name) =>
          source.includes(`attachment:${name}`) || (first && !sources.some((s) => s.includes(`attachment:${name}`))),
      );
      return names.length ? Object.fromEntries(names.map((n) => [n, structuredClone(attachments[n])])) : undefined;
    };
    const parts = sources.map((source, i): CellJson => {
      const part: CellJson =
        i === 0
          ? cell
          : {
              cell_type: cell.cell_type,
              id: newCellId(this.ids),
              metadata: structuredClone(cell.metadata ?? {}),
              source: [],
            };
      this.ids.add(part.id);
      part.source = splitLines(source);
      if (cell.cell_type === 'code' && i > 0) {
        part.execution_count = null;
        part.outputs = [];
      }
      if (cell.cell_type !== 'code') {
        const kept = partAttachments(source, i === 0);
        if (kept) part.attachments = kept;
        else delete part.attachments;
      }
      return part;
    });
    const last = parts[parts.length - 1];
    if (cell.cell_type === 'code' && last !== cell) {
      this.forgetDisplays(cell);
      last.outputs = cell.outputs ?? [];
      last.execution_count = cell.execution_count ?? null;
      cell.outputs = [];
      cell.execution_count = null;
    }
    this.json.cells.splice(index + 1, 0, ...parts.slice(1));
    this.touch();
    return { cells: parts, index };
  }

  /** A cell from the wire as the model keeps it: a new id unless `keepId` and the id is free. */
  private cellFromWire(wire: NotebookCell, keepId: boolean): CellJson {
    const cell: CellJson = {
      cell_type: wire.cell_type,
      id: keepId && !this.ids.has(wire.id) ? wire.id : newCellId(this.ids),
      metadata: structuredClone(wire.metadata),
      source: splitLines(wire.source),
    };
    this.ids.add(cell.id);
    if (wire.cell_type === 'code') {
      cell.outputs = structuredClone(wire.outputs) as OutputJson[];
      cell.execution_count = wire.execution_count;
    }
    if (wire.attachments && wire.cell_type !== 'code') cell.attachments = structuredClone(wire.attachments);
    restoreExactNumbers(cell, wire.exactNumbers);
    return cell;
  }

  /** Numbers the new metadata leaves as they were keep how the file wrote them (2.0 stays 2.0). */
  setCellMetadata(cellId: string, metadata: Json): void {
    const cell = this.cell(cellId);
    const next = structuredClone(metadata);
    restoreExactNumbers(next, exactNumberPointers(cell.metadata));
    cell.metadata = next;
    this.touch();
  }

  setKernelspec(spec: { name: string; display_name: string; language: string }): void {
    this.json.metadata = carryExactNumbers(this.json.metadata, { ...this.json.metadata, kernelspec: spec });
    this.touch();
  }

  // --- outputs (cell-outputs.ts) ------------------------------------------------------------

  /** Clears one cell's outputs and count (run start, Clear output). Returns whether anything changed. */
  clearOutputs(cell: CellJson): boolean {
    return this.outputs.clear(cell);
  }

  setExecutionCount(cell: CellJson, count: number | null): void {
    cell.execution_count = count;
    this.touch();
  }

  /** Applies one IOPub message of a running cell; returns the changes to announce. */
  applyOutput(cell: CellJson, msgType: string, content: Json): CellOutputChange[] {
    return this.outputs.apply(cell, msgType, content);
  }

  /** Adds an output Kiln made itself (pager payloads shown as display_data). */
  appendOutput(cell: CellJson, output: OutputJson): CellOutputChange {
    return this.outputs.append(cell, output);
  }

  /** update_display_data that arrived outside any running cell (e.g. from a background thread). */
  applyDisplayUpdate(content: Json): CellOutputChange[] {
    return this.outputs.applyDisplayUpdate(content);
  }

  private forgetDisplays(cell: CellJson): void {
    this.outputs.forget(cell);
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
    return wireCell(cell);
  }

  /**
   * The JSON to write (serializeNotebook puts it in nbformat's line form); an older minor becomes 4.5 so the cell
   * ids persist, as JupyterLab saves. With `keepFormat`, a file without ids stays in its minor, written without
   * them: an Agent's edit of two cells changes those two cells, not every cell and the version.
   */
  diskJson(keepFormat = false): NotebookJson {
    if (keepFormat && this.idlessMinor !== null) {
      const cells = this.json.cells.map((cell) => {
        const { id: _id, ...rest } = cell;
        return carryExactNumbers(cell, rest) as CellJson;
      });
      return carryExactNumbers(this.json, { ...this.json, nbformat_minor: this.idlessMinor, cells });
    }
    return this.json.nbformat_minor < CURRENT_MINOR
      ? carryExactNumbers(this.json, { ...this.json, nbformat_minor: CURRENT_MINOR })
      : this.json;
  }
}

/** A cell as the wire carries it (source joined, exact number literals pointed at). */
export function wireCell(cell: CellJson): NotebookCell {
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
  const exactNumbers = exactNumberPointers({
    metadata: cell.metadata,
    outputs: wire.outputs.length ? cell.outputs : [],
    attachments: cell.attachments,
  });
  if (exactNumbers) wire.exactNumbers = exactNumbers;
  return wire;
}

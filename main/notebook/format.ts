import { randomUUID } from 'node:crypto';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import { KilnError } from '../../shared/errors';
import { carryExactNumbers, JsonTooDeepError, MAX_JSON_DEPTH, parsePythonJson, writePythonJson } from './exact-json';
import schema44 from './schema/nbformat.v4.4.schema.json';
import schema45 from './schema/nbformat.v4.5.schema.json';

/*
 * nbformat 4 on disk: parse + validate (as nbformat does) and serialize (as Jupyter writes it:
 * keys sorted, one-space indent, non-ASCII kept, numbers as Python writes them, trailing newline).
 * Numbers a JavaScript number cannot carry (2.0, 1e+20, big ints) are kept beside the tree by exact-json/, so
 * every copy made on the way to disk passes them on with carryExactNumbers.
 */

export type Json = Record<string, unknown>;
export type MultilineValue = string | string[];

export interface OutputJson extends Json {
  output_type: string;
}

export interface CellJson extends Json {
  id: string;
  cell_type: string;
  metadata: Json;
  source?: MultilineValue;
  outputs?: OutputJson[];
  execution_count?: number | null;
}

export interface NotebookJson extends Json {
  cells: CellJson[];
  metadata: Json;
  nbformat: number;
  nbformat_minor: number;
}

export interface ParsedNotebook {
  json: NotebookJson;
  /** Non-fatal notes (cells that had no id and got one, an empty file). */
  warnings: string[];
  /** The file had no cell ids (nbformat < 4.5, or a 4.5 file missing them): ids live in memory until the next save. */
  idsAdded: boolean;
  /** For a 4.0-4.4 file with no cell ids at all (as nbformat writes those): its minor version, else absent. */
  idlessMinor?: number;
}

/** The newest minor version Kiln writes and validates strictly. */
export const CURRENT_MINOR = 5;

const ajv = new Ajv({ strict: false, allErrors: false, validateSchema: false });

function withoutDraft(schema: object): Json {
  // The schemas declare draft-04; their keywords mean the same in Ajv's default draft.
  const copy = structuredClone(schema) as Json;
  delete copy.$schema;
  return copy;
}

/** nbformat validates notebooks from a newer minor against the newest schema with additional properties allowed. */
function relaxAdditionalProperties(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(relaxAdditionalProperties);
  if (value && typeof value === 'object') {
    const out: Json = {};
    for (const [k, v] of Object.entries(value))
      out[k] = k === 'additionalProperties' ? true : relaxAdditionalProperties(v);
    return out;
  }
  return value;
}

/** nbformat 4.0-4.3 differ from 4.4 only in what 4.4 added as optional; the 4.4 schema judges them once the minor bound is lifted. */
function allowOlderMinor(schema: Json): Json {
  const props = schema.properties as Record<string, Json>;
  delete props.nbformat_minor.minimum;
  return schema;
}

/** As nbformat does for a notebook from the future: unknown fields, cell types and output types are allowed. */
function allowUndefined(schema: Json): Json {
  const defs = schema.definitions as Record<string, { oneOf: unknown[] }>;
  defs.cell.oneOf.push({ $ref: '#/definitions/unrecognized_cell' });
  defs.output.oneOf.push({ $ref: '#/definitions/unrecognized_output' });
  return schema;
}

ajv.addSchema(allowOlderMinor(withoutDraft(schema44)), 'nb44');
ajv.addSchema(withoutDraft(schema45), 'nb45');
ajv.addSchema(allowUndefined(relaxAdditionalProperties(withoutDraft(schema45)) as Json), 'nbfuture');

type SchemaKey = 'nb44' | 'nb45' | 'nbfuture';

function validator(ref: string): ValidateFunction {
  const fn = ajv.getSchema(ref);
  if (!fn) throw new Error(`Missing schema ${ref}`);
  return fn;
}

function schemaFor(minor: number): SchemaKey {
  if (minor < 5) return 'nb44';
  if (minor === 5) return 'nb45';
  return 'nbfuture';
}

/** A JSON pointer turned into the notation people read: cells[3].outputs[0].data */
function readablePath(pointer: string): string {
  if (!pointer) return 'the notebook';
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : acc ? `${acc}.${part}` : part), '');
}

function describeError(error: ErrorObject, prefix = ''): string {
  const where = readablePath(prefix + error.instancePath);
  const params = error.params as Record<string, unknown>;
  let detail = error.message ?? 'is invalid';
  if (error.keyword === 'additionalProperties') detail = `has an unknown field "${String(params.additionalProperty)}"`;
  else if (error.keyword === 'required') detail = `is missing the required field "${String(params.missingProperty)}"`;
  else if (error.keyword === 'enum') detail = `must be one of ${JSON.stringify(params.allowedValues)}`;
  return `${where} ${detail}`;
}

const CELL_DEFINITIONS: Record<string, string> = { code: 'code_cell', markdown: 'markdown_cell', raw: 'raw_cell' };

/** Names the first schema problem precisely; cells are checked one by one against their own cell type's definition. */
export function validateNotebook(json: unknown, minor: number): string | null {
  const key = schemaFor(minor);
  const whole = validator(key);
  if (whole(json)) return null;
  const cells = (json as { cells?: unknown }).cells;
  if (Array.isArray(cells)) {
    for (let i = 0; i < cells.length; i++) {
      const cell = cells[i] as { cell_type?: unknown } | null;
      const type = cell && typeof cell === 'object' ? cell.cell_type : undefined;
      const def = typeof type === 'string' ? CELL_DEFINITIONS[type] : undefined;
      if (!def) {
        if (key === 'nbfuture') continue;
        return `cells[${i}] has an unknown cell_type ${JSON.stringify(type ?? null)}`;
      }
      const one = validator(`${key}#/definitions/${def}`);
      if (!one(cell)) return describeError(one.errors![0], `/cells/${i}`);
      // Past the cell itself, an output may be what fails; name it rather than the whole cell.
      const outputs = (cell as { outputs?: unknown }).outputs;
      if (Array.isArray(outputs)) {
        const output = validator(`${key}#/definitions/output`);
        for (let j = 0; j < outputs.length; j++) {
          if (!output(outputs[j])) return describeError(output.errors![0], `/cells/${i}/outputs/${j}`);
        }
      }
    }
  }
  return describeError(whole.errors![0]);
}

/** Line and column of a character offset, for JSON syntax errors. */
function lineColumn(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - before.lastIndexOf('\n');
  return `line ${line}, column ${column}`;
}

function invalid(path: string, reason: string): KilnError {
  return new KilnError('E_INVALID_NOTEBOOK', `${path} is not a valid notebook: ${reason}`, { reason });
}

/** A fresh cell id as Jupyter makes them (8 hex characters), unique in `taken`. */
export function newCellId(taken: Set<string>): string {
  for (;;) {
    const id = randomUUID().replace(/-/g, '').slice(0, 8);
    if (!taken.has(id)) {
      taken.add(id);
      return id;
    }
  }
}

/** An empty nbformat 4.5 notebook with one empty code cell, as JupyterLab creates one. */
export function emptyNotebook(): NotebookJson {
  return {
    cells: [
      { cell_type: 'code', execution_count: null, id: newCellId(new Set()), metadata: {}, outputs: [], source: [] },
    ],
    metadata: {
      kernelspec: { display_name: 'Python 3 (ipykernel)', language: 'python', name: 'python3' },
      language_info: { name: 'python' },
    },
    nbformat: 4,
    nbformat_minor: CURRENT_MINOR,
  };
}

const CONFLICT_START = /^<{7}(?: |$)/m;
const CONFLICT_MIDDLE = /^={7}$/m;
const CONFLICT_END = /^>{7}(?: |$)/m;

/** Whether a text holds the markers git writes around a conflict (<<<<<<< ours, =======, >>>>>>> theirs). */
export function hasConflictMarkers(text: string): boolean {
  return CONFLICT_START.test(text) && CONFLICT_MIDDLE.test(text) && CONFLICT_END.test(text);
}

/** A cell id as nbformat 4.5 allows it. */
const CELL_ID = /^[a-zA-Z0-9-_]{1,64}$/;

/**
 * Parses and validates an .ipynb: whatever `nbformat.read` opens. Refuses (E_INVALID_NOTEBOOK, message naming
 * the problem) JSON syntax errors, anything but nbformat 4, schema errors and duplicate ids in a 4.5 file; and
 * with E_NOTEBOOK_CONFLICT a file whose JSON git's conflict markers broke (the resolver takes it from there).
 * A 4.0-4.4 file is upgraded in memory to 4.5 as JupyterLab does (the schemas differ only by cell ids): ids it
 * already carries are kept (several JupyterLab versions wrote them into 4.4 files), the others are added, and a
 * warning says the next save writes 4.5. A 4.5 file missing ids gets them the same way (nbformat repairs those).
 */
export function parseNotebook(text: string, path: string): ParsedNotebook {
  if (text.trim() === '') {
    return {
      json: emptyNotebook(),
      warnings: ['The file was empty; it becomes a notebook when saved.'],
      idsAdded: false,
    };
  }
  let data: unknown;
  try {
    data = parsePythonJson(text);
  } catch (err) {
    if (err instanceof JsonTooDeepError) {
      throw invalid(
        path,
        `it nests too deep: more than ${MAX_JSON_DEPTH} levels of JSON (${lineColumn(text, err.position)}), deeper than Jupyter reads`,
      );
    }
    if (hasConflictMarkers(text))
      throw new KilnError(
        'E_NOTEBOOK_CONFLICT',
        `${path} has unresolved git merge conflicts: the conflict markers git wrote make it invalid JSON`,
        { path },
      );
    const message = err instanceof Error ? err.message : String(err);
    const position = /position (\d+)/.exec(message);
    const where = position ? ` (${lineColumn(text, Number(position[1]))})` : '';
    throw invalid(path, `the file is not valid JSON${where}: ${message}`);
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) throw invalid(path, 'the file is not a JSON object');
  const nb = data as Json;
  const major = nb.nbformat;
  const minor = typeof nb.nbformat_minor === 'number' ? nb.nbformat_minor : 0;
  if (typeof major !== 'number') throw invalid(path, 'it has no "nbformat" version field');
  if (major < 4) {
    throw new KilnError(
      'E_INVALID_NOTEBOOK',
      `${path} uses nbformat ${major}, which Kiln does not open. Convert it once with "jupyter nbconvert --to notebook --inplace ${path}" (or open and save it in Jupyter).`,
      { reason: `unsupported nbformat ${major}` },
    );
  }
  if (major > 4) throw invalid(path, `nbformat ${major} is newer than Kiln supports (4)`);
  const cells = nb.cells;
  if (!Array.isArray(cells)) throw invalid(path, validateNotebook(nb, minor) ?? 'it has no "cells" list');

  const upgrading = minor < CURRENT_MINOR;
  // Before 4.5 an id is no part of the format: one that 4.5 would refuse, or a repeat, is replaced.
  const taken = new Set<string>();
  for (const cell of cells) {
    if (!isObject(cell) || typeof cell.id !== 'string') continue;
    if (upgrading && (!CELL_ID.test(cell.id) || taken.has(cell.id))) delete cell.id;
    else taken.add(cell.id);
  }
  const missing = cells.filter((cell) => isObject(cell) && !('id' in cell)).length;
  if (upgrading) nb.nbformat_minor = CURRENT_MINOR;
  // Judged with the ids it will have, so a file that lacks them (and only them) is not refused for it.
  const withIds = structuredClone(cells) as unknown[];
  const probeTaken = new Set(taken);
  for (const cell of withIds) if (isObject(cell) && !('id' in cell)) cell.id = newCellId(probeTaken);
  const error = validateNotebook({ ...nb, cells: withIds }, upgrading ? CURRENT_MINOR : minor);
  if (error) throw invalid(path, error);
  const seen = new Map<string, number>();
  for (let i = 0; i < cells.length; i++) {
    const id = (cells[i] as Json).id;
    if (typeof id !== 'string') continue;
    if (seen.has(id))
      throw invalid(path, `cell id "${id}" is used by more than one cell (cells[${seen.get(id)}] and cells[${i}])`);
    seen.set(id, i);
  }
  for (const cell of cells as Json[]) if (typeof cell.id !== 'string') cell.id = newCellId(taken);

  const warnings: string[] = [];
  if (upgrading) {
    const ids =
      missing === 0
        ? 'its cell ids are kept'
        : missing === cells.length
          ? 'its cells were given ids'
          : `${missing} of its ${cells.length} cells were given ids`;
    warnings.push(
      `This notebook was nbformat 4.${minor}; Kiln opened it as 4.5 (as JupyterLab does): ${ids}. The next save writes nbformat 4.5.`,
    );
  } else if (missing > 0) {
    warnings.push('Some cells had no id; Kiln gave them ids, written on the next save.');
  }
  return {
    json: nb as NotebookJson,
    warnings,
    idsAdded: missing > 0,
    ...(upgrading && missing === cells.length ? { idlessMinor: minor } : {}),
  };
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// ---------------------------------------------------------------------------------------------
// Serialization
// ---------------------------------------------------------------------------------------------

/** Python's str.splitlines(keepends=True), which nbformat uses for multiline fields. */
const LINE =
  // eslint-disable-next-line no-control-regex -- \x1c-\x1e are line breaks to Python
  /[^\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]*(?:\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029])|[^\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]+$/gu;
export function splitLines(text: string): string[] {
  return text.match(LINE) ?? [];
}

export function joinLines(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.join('');
  return '';
}

/** Mimetypes nbformat splits into lines besides text/*: the rest (images, JSON) are kept whole. */
const SPLIT_MIMES = new Set(['application/javascript', 'image/svg+xml']);

/** JSON mimetypes hold structure, never lines (nbformat's _is_json_mime). */
function isJsonMime(mime: string): boolean {
  return mime === 'application/json' || (mime.startsWith('application/') && mime.endsWith('+json'));
}

/** A list of strings read from disk, joined (nbformat's rejoin_lines); anything else as it is. */
function joined(value: unknown): unknown {
  return Array.isArray(value) && value.every((line) => typeof line === 'string') ? value.join('') : value;
}

/** nbformat's rejoin then split of a mimebundle: text/* (and JavaScript, SVG) as lists of lines, the rest whole. */
function diskBundle(bundle: unknown): unknown {
  if (!isObject(bundle)) return bundle;
  const out: Json = carryExactNumbers(bundle, {});
  for (const [mime, value] of Object.entries(bundle)) {
    const text = isJsonMime(mime) ? value : joined(value);
    out[mime] =
      typeof text === 'string' && (mime.startsWith('text/') || SPLIT_MIMES.has(mime)) ? splitLines(text) : text;
  }
  return out;
}

/** An output in the form nbformat writes it (what nbformat.read then nbformat.writes gives). */
function splitOutputForDisk(output: OutputJson): OutputJson {
  const copy: OutputJson = carryExactNumbers(output, { ...output });
  if (copy.output_type === 'execute_result' || copy.output_type === 'display_data') {
    if ('data' in copy) copy.data = diskBundle(copy.data);
  } else if ('text' in copy) {
    copy.text = joined(copy.text);
    if (copy.output_type === 'stream' && typeof copy.text === 'string') copy.text = splitLines(copy.text);
  }
  return copy;
}

/** nbformat's rejoin_lines, split_lines and strip_transient, on a copy: the notebook as nbformat.writes sees it. */
function diskForm(nb: NotebookJson): NotebookJson {
  const metadata: Json = carryExactNumbers(nb.metadata, { ...nb.metadata });
  for (const transient of ['orig_nbformat', 'orig_nbformat_minor', 'signature']) delete metadata[transient];
  const cells = nb.cells.map((cell) => {
    const out: CellJson = carryExactNumbers(cell, { ...cell });
    const source = joined(out.source);
    if (typeof source === 'string') out.source = splitLines(source);
    if (isObject(out.attachments)) {
      out.attachments = carryExactNumbers(
        out.attachments,
        Object.fromEntries(Object.entries(out.attachments).map(([name, bundle]) => [name, diskBundle(bundle)])),
      );
    }
    if (out.cell_type === 'code' && Array.isArray(out.outputs)) out.outputs = out.outputs.map(splitOutputForDisk);
    if (isObject(out.metadata) && 'trusted' in out.metadata) {
      const { trusted: _trusted, ...rest } = out.metadata;
      out.metadata = carryExactNumbers(out.metadata, rest);
    }
    return out;
  });
  return carryExactNumbers(nb, { ...nb, metadata, cells });
}

/**
 * The bytes nbformat.write puts on disk (what Jupyter saves): nbformat.writes, i.e. split_lines, strip_transient and
 * json.dumps(nb, sort_keys=True, indent=1, ensure_ascii=False), then a newline.
 */
export function serializeNotebook(nb: NotebookJson): string {
  return `${writePythonJson(diskForm(nb))}\n`;
}

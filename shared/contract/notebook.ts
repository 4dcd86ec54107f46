import { z } from 'zod';
import { request } from './define';
import { RelPath } from './workspace';

/*
 * Notebooks against a live Jupyter kernel.
 *
 * The main process owns each open notebook's document and its kernel. The renderer keeps a copy:
 * it gets the whole document from `notebook.open` (and again on `notebook.changed`), applies the
 * small mutations announced by `notebook.output` / `notebook.cellState` while cells run, and asks
 * for every edit through a request. Every request that changes the document returns the new
 * document revision (`rev`), so a renderer can tell whether it missed something.
 *
 * Cells are addressed by `cellId` (nbformat 4.5 cell ids; older notebooks get ids in memory,
 * written when the notebook is next saved after an edit).
 */

// ---------------------------------------------------------------------------------------------
// Document shapes (nbformat 4, as stored on disk; multiline values may be a string or a list of lines)
// ---------------------------------------------------------------------------------------------

/** nbformat's multiline string: either one string or a list of lines that are joined with ''. */
export const MultilineString = z.union([z.string(), z.array(z.string())]);
export type MultilineString = z.infer<typeof MultilineString>;

/** Joins a multiline value the way Jupyter does. */
export function joinMultiline(value: MultilineString | undefined): string {
  if (value === undefined) return '';
  return typeof value === 'string' ? value : value.join('');
}

/**
 * Any JSON value. Its JSON Schema names the types instead of being an empty `{}`, which MCP clients' schema
 * checks (the MCP Inspector's portability lint among them) flag as untyped.
 */
export const JsonValue = z.unknown().meta({
  anyOf: [
    { type: 'string' },
    { type: 'number' },
    { type: 'boolean' },
    { type: 'null' },
    { type: 'array' },
    { type: 'object', additionalProperties: true },
  ],
});
/** Free-form metadata: a JSON object. */
export const JsonObject = z.record(z.string(), JsonValue);

/** Mimetype -> data. Text types are MultilineString; JSON types (application/json, *+json) are any JSON. */
export const MimeBundle = JsonObject;
export type MimeBundle = z.infer<typeof MimeBundle>;

export const StreamOutput = z
  .object({
    output_type: z.literal('stream'),
    /** 'stdout' or 'stderr'. */
    name: z.string(),
    text: MultilineString,
  })
  .catchall(JsonValue);
export const DisplayDataOutput = z
  .object({
    output_type: z.literal('display_data'),
    data: MimeBundle,
    metadata: JsonObject,
  })
  .catchall(JsonValue);
export const ExecuteResultOutput = z
  .object({
    output_type: z.literal('execute_result'),
    execution_count: z.number().int().nullable(),
    data: MimeBundle,
    metadata: JsonObject,
  })
  .catchall(JsonValue);
export const ErrorOutput = z
  .object({
    output_type: z.literal('error'),
    ename: z.string(),
    evalue: z.string(),
    /** Lines with ANSI colour escapes, as IPython sends them. */
    traceback: z.array(z.string()),
  })
  .catchall(JsonValue);
/** An output type from a newer nbformat; shown as unsupported, kept on save. */
export const UnknownOutput = z.object({ output_type: z.string() }).catchall(JsonValue);

export const NotebookOutput = z.union([
  StreamOutput,
  DisplayDataOutput,
  ExecuteResultOutput,
  ErrorOutput,
  UnknownOutput,
]);
export type StreamOutput = z.infer<typeof StreamOutput>;
export type DisplayDataOutput = z.infer<typeof DisplayDataOutput>;
export type ExecuteResultOutput = z.infer<typeof ExecuteResultOutput>;
export type ErrorOutput = z.infer<typeof ErrorOutput>;
export type NotebookOutput = z.infer<typeof NotebookOutput>;

export const CellType = z.enum(['code', 'markdown', 'raw']);
export type CellType = z.infer<typeof CellType>;

export const NotebookCell = z.object({
  id: z.string(),
  /** 'code' | 'markdown' | 'raw'; anything else is a cell type from a newer nbformat (read-only, kept on save). */
  cell_type: z.string(),
  /** The source joined into one string. */
  source: z.string(),
  metadata: JsonObject,
  /** Code cells only; [] otherwise. */
  outputs: z.array(NotebookOutput),
  /** Code cells only; null when never run (or cleared), and always null for other cell types. */
  execution_count: z.number().int().nullable(),
  /** Markdown/raw cells: attached files by name -> mime bundle (base64 data). */
  attachments: z.record(z.string(), MimeBundle).optional(),
  /**
   * Numbers in metadata, outputs and attachments as the file writes them, by JSON pointer into this cell, where a
   * plain number would print otherwise (2.0, 1e+20, a 30-digit int) or JSON cannot carry it (NaN, Infinity: null
   * on the wire). Sent back with the cell (notebook.restoreCell), they are kept on save.
   */
  exactNumbers: z.record(z.string(), z.string()).optional(),
});
export type NotebookCell = z.infer<typeof NotebookCell>;

/** What the renderer shows for the kernel of a notebook. */
export const KernelStatus = z.enum([
  /** No kernel yet (not started, or Jupyter unavailable). */
  'none',
  'starting',
  'idle',
  'busy',
  'restarting',
  /** The kernel died and was not restarted; the notebook and outputs stay. Offer Restart. */
  'dead',
  /** The connection to the Jupyter server is lost; Kiln retries, Reconnect forces it. */
  'disconnected',
]);
export type KernelStatus = z.infer<typeof KernelStatus>;

export const KernelInfo = z.object({
  status: KernelStatus,
  /** Kernelspec name (e.g. 'python3'); null before a kernel was chosen. */
  name: z.string().nullable(),
  displayName: z.string().nullable(),
  language: z.string().nullable(),
  /**
   * Why the kernel is 'disconnected' or 'dead', in words for the toolbar and the cells, when Kiln knows: e.g.
   * "Jupyter server at http://host:8888/ is not answering; retrying", or that the server came back without the kernel.
   */
  message: z.string().optional(),
});
export type KernelInfo = z.infer<typeof KernelInfo>;

export const NotebookDocument = z.object({
  path: RelPath,
  nbformat: z.number().int(),
  nbformat_minor: z.number().int(),
  /** Notebook metadata, unknown keys included. */
  metadata: JsonObject,
  cells: z.array(NotebookCell),
  /** Unsaved changes exist. Output arriving from a run also makes a notebook dirty, as in JupyterLab. */
  dirty: z.boolean(),
  /** Increases with every change to the document (edits and outputs). */
  rev: z.number().int(),
  /** Hash of the bytes last read from or written to disk. */
  diskHash: z.string(),
  kernel: KernelInfo,
  /** Non-fatal notes about the file, e.g. cells that had no id and were given one. */
  warnings: z.array(z.string()),
  /**
   * Only in a `notebook.open` answer that asked for `firstCells`: how many cells follow those in `cells`, to be
   * fetched with `notebook.cells` (a big notebook's first screen paints before the rest is sent).
   */
  pendingCells: z.number().int().nonnegative().optional(),
});
export type NotebookDocument = z.infer<typeof NotebookDocument>;

export const KernelSpecInfo = z.object({
  name: z.string(),
  displayName: z.string(),
  language: z.string(),
});
export type KernelSpecInfo = z.infer<typeof KernelSpecInfo>;

/** What a finished (or abandoned) cell execution reports; also what the agent's rerun verb returns. */
export const CellRunResult = z.object({
  cell_id: z.string(),
  /** 'ok' ran without error; 'error' raised; 'aborted' never ran or was cut off (an earlier cell failed, interrupt, restart, kernel death); 'skipped' not a code cell. */
  status: z.enum(['ok', 'error', 'aborted', 'skipped']),
  exec_count: z.number().int().nullable(),
  duration_ms: z.number(),
  had_error: z.boolean(),
  outputs: z.array(NotebookOutput),
  /** Why an 'aborted' cell did not run or was cut off, when it was not the operator's doing (e.g. the server stopped answering). */
  reason: z.string().optional(),
});
export type CellRunResult = z.infer<typeof CellRunResult>;

// ---------------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------------

const NotebookRef = z.object({ path: RelPath });
const CellRef = z.object({ path: RelPath, cellId: z.string() });
/** Returned by edits: the new revision and dirty flag (the renderer already applied the edit optimistically or re-reads). */
export const EditResult = z.object({ rev: z.number().int(), dirty: z.boolean() });
export type EditResult = z.infer<typeof EditResult>;

export const RunScope = z.enum(['all', 'above', 'below']);
export type RunScope = z.infer<typeof RunScope>;

export const notebookRequests = {
  /**
   * Opens (or returns the already open) notebook. Refused with E_INVALID_NOTEBOOK (message names the problem:
   * JSON syntax, schema error with its location, duplicate cell ids, nbformat 3) — the file is never overwritten.
   * Starts the kernel in the background (status via notebook.kernelStatus); a missing Jupyter does not stop opening.
   */
  'notebook.open': request(
    NotebookRef.extend({
      /** Send only this many cells now; `pendingCells` in the answer says how many are left for notebook.cells. */
      firstCells: z.number().int().positive().optional(),
    }),
    NotebookDocument,
  ),
  /**
   * Cells `from` .. `from + count` of an open notebook as it is at revision `rev` over the disk version `diskHash`
   * (the document an open with `firstCells` answered). `stale` (and no cells) when the notebook has changed
   * since: the caller takes the whole document from notebook.get instead.
   */
  'notebook.cells': request(
    z.object({
      path: RelPath,
      from: z.number().int().nonnegative(),
      count: z.number().int().positive(),
      rev: z.number().int(),
      diskHash: z.string(),
    }),
    z.object({ cells: z.array(NotebookCell), stale: z.boolean() }),
  ),
  /** Creates an empty notebook file (one empty code cell, Python 3 kernelspec) and opens it; E_EXISTS if the path is taken. */
  'notebook.create': request(NotebookRef, NotebookDocument),
  /** The current document of an open notebook (E_NOT_FOUND if not open). */
  'notebook.get': request(NotebookRef, NotebookDocument),
  /** Writes the notebook atomically as Jupyter formats it; a no-op when nothing changed. E_CHANGED_ON_DISK if the file changed behind Kiln (see notebook.conflict). */
  'notebook.save': request(
    z.object({
      path: RelPath,
      /** Overwrite even if the disk changed since it was read. */ force: z.boolean().default(false),
    }),
    z.object({ saved: z.boolean(), diskHash: z.string(), rev: z.number().int() }),
  ),
  /**
   * Writes the open notebook to a new file (E_EXISTS if the path is taken) and carries on there, kernel
   * and all: the way out for a notebook whose file was deleted or renamed by another program.
   */
  'notebook.saveAs': request(z.object({ path: RelPath, target: RelPath }), NotebookDocument),
  /** Discards the in-memory document (unsaved changes are lost; the renderer asks first) and shuts its kernel down. */
  'notebook.close': request(NotebookRef, z.object({ closed: z.boolean() })),
  /** Re-reads the file from disk, dropping unsaved changes (the "Reload" button of the conflict bar). */
  'notebook.revert': request(NotebookRef, NotebookDocument),

  /** Inserts a new cell at `index` (default: the end). Returns the new cell. */
  'notebook.insertCell': request(
    z.object({
      path: RelPath,
      index: z.number().int().min(0).optional(),
      cellType: CellType.default('code'),
      source: z.string().default(''),
    }),
    z.object({ cell: NotebookCell, index: z.number().int(), rev: z.number().int(), dirty: z.boolean() }),
  ),
  /** Replaces a cell's source; its outputs and execution count are kept. */
  'notebook.editCell': request(z.object({ path: RelPath, cellId: z.string(), source: z.string() }), EditResult),
  /** Changes a cell's type; leaving 'code' drops outputs and the execution count. */
  'notebook.setCellType': request(z.object({ path: RelPath, cellId: z.string(), cellType: CellType }), EditResult),
  /** Moves a cell to `toIndex` (its index after the move). */
  'notebook.moveCell': request(
    z.object({ path: RelPath, cellId: z.string(), toIndex: z.number().int().min(0) }),
    EditResult,
  ),
  /** Deletes a cell; the result carries the cell and its index so the renderer can offer undo (re-insert via notebook.restoreCell). */
  'notebook.deleteCell': request(
    CellRef,
    z.object({ cell: NotebookCell, index: z.number().int(), rev: z.number().int(), dirty: z.boolean() }),
  ),
  /** Puts a deleted cell back (undo delete), keeping its id, source and outputs. */
  'notebook.restoreCell': request(
    z.object({ path: RelPath, cell: NotebookCell, index: z.number().int().min(0) }),
    EditResult,
  ),
  /** Replaces several cells' sources as one edit (Replace All); every cell is checked before any changes. */
  'notebook.editCells': request(
    z.object({
      path: RelPath,
      edits: z
        .array(z.object({ cellId: z.string(), source: z.string() }))
        .min(1)
        .max(100_000),
    }),
    EditResult,
  ),
  /** Replaces a cell's metadata (e.g. tags, collapsed). */
  'notebook.setCellMetadata': request(
    z.object({ path: RelPath, cellId: z.string(), metadata: JsonObject }),
    EditResult,
  ),

  /**
   * Runs (or re-runs) one cell: its outputs are cleared, it runs against the live kernel (earlier variables in scope),
   * and the request resolves when it finished. Outputs stream meanwhile as notebook.output events.
   * Markdown/raw cells resolve at once with status 'skipped'. E_NO_JUPYTER / E_KERNEL_DEAD when there is no kernel.
   */
  'notebook.runCell': request(CellRef, CellRunResult),
  /** Runs every code cell in document order ('all'), those before `cellId` ('above', exclusive) or from `cellId` on ('below', inclusive). Stops at the first error; the rest report 'aborted'. */
  'notebook.runCells': request(
    z.object({ path: RelPath, scope: RunScope, cellId: z.string().optional() }),
    z.object({ results: z.array(CellRunResult) }),
  ),
  /** Clears the outputs (and execution counts) of one cell, or of all cells when cellId is omitted. */
  'notebook.clearOutputs': request(z.object({ path: RelPath, cellId: z.string().optional() }), EditResult),
  /** Interrupts the running cell (KeyboardInterrupt) and drops the queued ones. */
  'notebook.interrupt': request(NotebookRef, z.object({ interrupted: z.boolean() })),
  /** Restarts the kernel: variables are gone, outputs stay, src/ is on sys.path again. */
  'notebook.restart': request(NotebookRef, KernelInfo),
  /** Restarts the kernel and then runs all cells. */
  'notebook.restartRunAll': request(NotebookRef, z.object({ results: z.array(CellRunResult) })),
  /** Reconnects to the notebook's kernel (or starts a new one if the server lost it). */
  'notebook.reconnect': request(NotebookRef, KernelInfo),
  /** The kernels the Jupyter server offers, for the kernel picker. E_NO_JUPYTER when none can be reached. */
  'notebook.kernelSpecs': request(
    z.object({}),
    z.object({ default: z.string().nullable(), specs: z.array(KernelSpecInfo) }),
  ),
  /** Switches the notebook to another kernelspec (new kernel; writes metadata.kernelspec, so the notebook becomes dirty). */
  'notebook.setKernel': request(z.object({ path: RelPath, name: z.string() }), KernelInfo),
  /** Answers a pending input() prompt (see notebook.inputRequest). */
  'notebook.inputReply': request(z.object({ path: RelPath, value: z.string() }), z.object({ accepted: z.boolean() })),
} as const;

// ---------------------------------------------------------------------------------------------
// Events
// ---------------------------------------------------------------------------------------------

/**
 * A change to one cell's outputs while it runs. Apply in arrival order:
 * - append: push `output`.
 * - appendText: stream text appended to the stream output at `index` (consecutive stream output of one name is merged, as JupyterLab does).
 * - replace: output at `index` replaced (update_display_data by display_id; clear_output(wait=True) followed by new output arrives as clear + append).
 * - clear: all outputs of the cell removed (run start, clear_output, notebook.clearOutputs).
 */
export const OutputChange = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('append'), output: NotebookOutput }),
  z.object({ kind: z.literal('appendText'), index: z.number().int(), text: z.string() }),
  z.object({ kind: z.literal('replace'), index: z.number().int(), output: NotebookOutput }),
  z.object({ kind: z.literal('clear') }),
]);
export type OutputChange = z.infer<typeof OutputChange>;

export const CellState = z.enum(['queued', 'running', 'idle']);
export type CellState = z.infer<typeof CellState>;

export const notebookEvents = {
  'notebook.output': z.object({ path: RelPath, cellId: z.string(), rev: z.number().int(), change: OutputChange }),
  /** A cell was queued, started or finished; `execution_count` is the cell's count after this change. */
  'notebook.cellState': z.object({
    path: RelPath,
    cellId: z.string(),
    state: CellState,
    execution_count: z.number().int().nullable(),
    /** Set when state is 'idle' after a run. */
    result: CellRunResult.optional(),
    /** The cell's metadata after a run (set with `result`): the run may have recorded its timing in `execution`. */
    metadata: JsonObject.optional(),
  }),
  'notebook.kernelStatus': z.object({ path: RelPath, kernel: KernelInfo }),
  /** The whole document was replaced (reloaded from disk, reverted) or changed by a non-renderer caller (agent verbs): re-render from it. */
  'notebook.changed': z.object({
    path: RelPath,
    document: NotebookDocument,
    reason: z.enum(['reloaded', 'reverted', 'edited']),
  }),
  /** The file changed on disk while the notebook has unsaved changes: show the conflict bar (Reload = notebook.revert, Keep mine = notebook.save with force). */
  'notebook.conflict': z.object({ path: RelPath, diskHash: z.string().nullable(), message: z.string() }),
  /** The dirty flag flipped (edit, output, save). */
  'notebook.dirty': z.object({ path: RelPath, dirty: z.boolean(), rev: z.number().int() }),
  /** The cell is waiting for input() from the operator; answer with notebook.inputReply. */
  'notebook.inputRequest': z.object({ path: RelPath, cellId: z.string(), prompt: z.string(), password: z.boolean() }),
  /**
   * Jupyter could not be found, started or reached (code E_NO_JUPYTER with what to install or configure), or
   * the server died/restarted. Sent once per problem, not per cell.
   */
  'notebook.jupyterError': z.object({ code: z.string(), message: z.string(), path: RelPath.optional() }),
} as const;

import { z } from 'zod';
import { request } from './define';
import { cellRunChip, notebookChangeChip, processRunChip, type VerbChip } from './verb-chips';
import { NotebookSaved, VerbCellRunResult, VerbRunResult } from './verb-results';
import { EntryKind, RelPath } from './workspace';

export type { VerbChip } from './verb-chips';
export { DIRECT_WRITES_NOTE } from './verb-chips';
export * from './verb-results';

/*
 * The workspace verbs agents use. One table, VERBS, holds everything about each verb but its implementation:
 * description, input and result schemas, guide line, flags and chip summary. Kiln's Agent, the MCP
 * server and the UI all read it, so adding a verb is one entry here plus one method in main/verbs.
 * Verb arguments use snake_case, as tool-calling models expect; paths are workspace-relative
 * (an absolute path inside the workspace is accepted and normalized).
 */

const VerbPath = RelPath.min(1).describe('Workspace-relative path (an absolute path inside the workspace is accepted)');
const NotebookName = RelPath.min(1).describe(
  'The notebook: its workspace-relative path, with or without ".ipynb" ("x" is x.ipynb)',
);
const Heavy = z
  .boolean()
  .default(false)
  .describe(
    'Use the training profile: 600 s instead of 60 s, most of the memory (for training, big data loads); default false',
  );

const WriteFileInput = z.object({
  path: VerbPath,
  content: z.string().describe('The whole new content of the file'),
  overwrite: z.boolean().default(true).describe('Replace an existing file (default true); false refuses with E_EXISTS'),
});

const EditFileInput = z
  .object({
    path: VerbPath,
    mode: z
      .enum(['replace', 'overwrite'])
      .describe(
        '"replace": swap the text `old` (which must occur exactly once) for `new`; "overwrite": replace the whole file with `content`',
      ),
    old: z
      .string()
      .optional()
      .describe('mode "replace": the exact text to replace; include enough context that it occurs exactly once'),
    new: z.string().optional().describe('mode "replace": the replacement text'),
    content: z.string().optional().describe('mode "overwrite": the whole new content'),
  })
  .superRefine((value, ctx) => {
    if (value.mode === 'replace') {
      if (value.old === undefined || value.old === '')
        ctx.addIssue({ code: 'custom', path: ['old'], message: 'mode "replace" needs a non-empty `old`' });
      if (value.new === undefined)
        ctx.addIssue({ code: 'custom', path: ['new'], message: 'mode "replace" needs `new`' });
    } else if (value.content === undefined) {
      ctx.addIssue({ code: 'custom', path: ['content'], message: 'mode "overwrite" needs `content`' });
    }
  });

const CellTypeInput = z.enum(['code', 'markdown', 'raw']);

/** One verb, whole: what models read, its schemas, and what every front-end needs to know about it. */
interface VerbSpec<I extends z.ZodObject, R extends z.ZodObject> {
  /** For models: the tool description (AI SDK tools, MCP tools). */
  description: string;
  input: I;
  result: R;
  /** Its line in the harness guide ("Authoring vs running"), which both Kiln's agent and MCP clients read. */
  guide: string;
  /** Replaces or removes what is there (MCP's destructiveHint); the others only add (files, steps, cells), read or run. */
  destructive?: boolean;
  /** Served only where there is a notebook service (E_NO_JUPYTER and listed unavailable otherwise). */
  needsNotebooks?: boolean;
  /** Runs a cell on a notebook's live kernel: stopping the agent interrupts that kernel. */
  runsCell?: boolean;
  /** How its chip in the Agent panel sums up the result. */
  chip: (result: z.output<R>) => VerbChip;
}

export type VerbEntry<I extends z.ZodObject, R extends z.ZodObject> = Required<VerbSpec<I, R>>;

function verb<I extends z.ZodObject, R extends z.ZodObject>(spec: VerbSpec<I, R>): VerbEntry<I, R> {
  return { destructive: false, needsNotebooks: false, runsCell: false, ...spec };
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export const VERBS = {
  'list-files': verb({
    description: 'List one folder of the workspace (folders first). Reading is not logged in scripts/.',
    input: z.object({
      path: VerbPath.default('').describe('Folder to list, relative to the workspace root; "" is the root'),
    }),
    result: z.object({ path: RelPath, entries: z.array(z.object({ name: z.string(), kind: EntryKind })) }),
    guide: 'see what a folder holds (not logged).',
    chip: (result) => ({ summary: `${result.entries.length} entries` }),
  }),
  'read-file': verb({
    description: 'Read a text file of the workspace, whole or a range of lines. Reading is not logged in scripts/.',
    input: z.object({
      path: VerbPath,
      start_line: z.number().int().min(1).default(1).describe('First line to return (1-based)'),
      max_lines: z.number().int().min(1).max(20_000).default(2000).describe('How many lines at most'),
    }),
    result: z.object({
      path: RelPath,
      content: z.string(),
      start_line: z.number().int(),
      total_lines: z.number().int(),
      truncated: z.boolean(),
    }),
    guide: 'read a file, or a range of its lines, before changing it (not logged).',
    chip: (result) => ({ summary: `${result.total_lines} lines${result.truncated ? ' (part)' : ''}` }),
  }),
  'write-file': verb({
    description:
      'Create a file or replace it whole; parent folders are created. Put reusable code in src/ (it is importable from ' +
      'run-file, execute-code and notebooks). Authoring is not logged in scripts/.',
    input: WriteFileInput,
    result: z.object({ path: RelPath, bytes_written: z.number().int(), created: z.boolean() }),
    guide: 'create a file or replace it whole; reusable code goes in `src/` (authoring: not logged).',
    destructive: true,
    chip: (result) => ({ summary: `${result.bytes_written} bytes${result.created ? ' · new' : ''}` }),
  }),
  'edit-file': verb({
    description:
      'Change an existing file: mode "replace" swaps `old` (must occur exactly once) for `new`; mode "overwrite" replaces ' +
      'the whole content. Prefer this over writing a near-copy of a module. Never creates a file (E_NOT_FOUND).',
    input: EditFileInput,
    result: z.object({
      path: RelPath,
      bytes_written: z.number().int(),
      /** How many occurrences were replaced: 1 for mode "replace", 0 for "overwrite". */
      replacements: z.number().int(),
    }),
    guide:
      'change an existing file in place: `mode: "replace"` with an `old` that occurs exactly once, or `mode: "overwrite"` (authoring: not logged).',
    destructive: true,
    chip: (result) => ({
      summary: `${result.replacements === 0 ? 'overwritten' : plural(result.replacements, 'replacement')} · ${result.bytes_written} bytes`,
    }),
  }),
  'run-file': verb({
    description:
      'Run a Python file as __main__ in a fresh sandbox (working directory: the workspace root; src/ importable; only the ' +
      'workspace is writable, scripts/ excepted; no network, no secrets). Logged in scripts/ as a step that runs the file ' +
      '(replayable with python3 from the root). Time limit 60 s, or 600 s with heavy.',
    input: z.object({ path: VerbPath, heavy: Heavy }),
    result: VerbRunResult,
    guide: 'run a Python file as `__main__` in a fresh sandbox; logged in `scripts/` as a step that runs it.',
    chip: processRunChip,
  }),
  'execute-code': verb({
    description:
      'Run throwaway Python in a fresh sandbox (working directory: the workspace root; src/ importable; only the ' +
      'workspace is writable, scripts/ excepted; no network, no secrets); the code is saved in scripts/ as the next step. ' +
      'For code you will reuse, write a module in src/ instead.',
    input: z.object({ code: z.string().min(1).describe('Python source to run'), heavy: Heavy }),
    result: VerbRunResult,
    guide: 'run a throwaway one-shot in a fresh sandbox; its code is saved in `scripts/` as the next step.',
    chip: (result) => ({ ...processRunChip(result), target: result.script }),
  }),
  'append-notebook-cell': verb({
    description: 'Append a cell to the end of a notebook without running it.',
    input: z.object({
      notebook_name: NotebookName,
      source: z.string(),
      cell_type: CellTypeInput.default('code').describe('"code" (default), "markdown" or "raw"'),
    }),
    result: z.object({ cell_id: z.string(), index: z.number().int(), ...NotebookSaved }),
    guide: 'append a cell to a notebook without running it.',
    needsNotebooks: true,
    chip: (result) => notebookChangeChip(`cell ${result.index} added`, result),
  }),
  'run-notebook-cell': verb({
    description:
      "Append a code cell to the end of a notebook and run it against the notebook's live kernel (earlier cells' " +
      "variables are in scope; src/ is importable; the kernel's working directory is the notebook's folder).",
    input: z.object({ notebook_name: NotebookName, source: z.string() }),
    result: VerbCellRunResult,
    guide: "append a code cell to a notebook and run it on the notebook's live kernel.",
    needsNotebooks: true,
    runsCell: true,
    chip: cellRunChip,
  }),
  'edit-notebook-cell': verb({
    description: "Replace a notebook cell's source (and optionally its type); its outputs are kept. Does not run it.",
    input: z.object({
      notebook_name: NotebookName,
      cell_id: z.string().min(1),
      source: z.string(),
      cell_type: CellTypeInput.optional(),
    }),
    result: z.object({ cell_id: z.string(), source_len: z.number().int(), ...NotebookSaved }),
    guide: "replace a notebook cell's source (outputs kept, not run).",
    destructive: true,
    needsNotebooks: true,
    chip: (result) => notebookChangeChip(`cell ${result.cell_id} edited`, result),
  }),
  'delete-notebook-cell': verb({
    description: 'Delete a cell from a notebook.',
    input: z.object({ notebook_name: NotebookName, cell_id: z.string().min(1) }),
    result: z.object({ cell_id: z.string(), remaining_cells: z.number().int(), ...NotebookSaved }),
    guide: 'delete a notebook cell.',
    destructive: true,
    needsNotebooks: true,
    chip: (result) => notebookChangeChip(`${result.remaining_cells} cells left`, result),
  }),
  'rerun-notebook-cell': verb({
    description:
      "Clear a notebook cell's outputs and run it again against the live kernel, with earlier state in scope.",
    input: z.object({ notebook_name: NotebookName, cell_id: z.string().min(1) }),
    result: VerbCellRunResult,
    guide: "clear a notebook cell's outputs and run it again on the live kernel.",
    needsNotebooks: true,
    runsCell: true,
    chip: cellRunChip,
  }),
} as const;

export type VerbTable = typeof VERBS;
export type VerbName = keyof VerbTable;
export const VERB_NAMES = Object.keys(VERBS) as VerbName[];
/** What a caller passes (defaults not applied). */
export type VerbArgs<V extends VerbName> = z.input<VerbTable[V]['input']>;
/** What the verb receives after validation. */
export type ParsedVerbArgs<V extends VerbName> = z.output<VerbTable[V]['input']>;
export type VerbResult<V extends VerbName> = z.output<VerbTable[V]['result']>;

export function isVerbName(name: string): name is VerbName {
  return Object.hasOwn(VERBS, name);
}

/** A verb's input as JSON Schema (draft-7, input side: fields with defaults are optional), for MCP and model tool definitions. */
export function verbInputJsonSchema(name: VerbName): Record<string, unknown> {
  return z.toJSONSchema(VERBS[name].input, { target: 'draft-7', io: 'input' }) as Record<string, unknown>;
}

export const VerbInfo = z.object({
  name: z.string(),
  description: z.string(),
  inputSchema: z.record(z.string(), z.unknown()),
  /** False when this host cannot serve the verb (e.g. notebook verbs without a notebook service). */
  available: z.boolean(),
});
export type VerbInfo = z.infer<typeof VerbInfo>;

type VerbCallOption<V extends VerbName> = z.ZodObject<{ verb: z.ZodLiteral<V>; args: VerbTable[V]['input'] }>;

function callOption<V extends VerbName>(name: V): VerbCallOption<V> {
  return z.object({ verb: z.literal(name), args: VERBS[name].input }) as VerbCallOption<V>;
}

type AnyVerbCallOption = { [V in VerbName]: VerbCallOption<V> }[VerbName];
type AnyVerbResultSchema = VerbTable[VerbName]['result'];

/** `{ verb, args }`, the args checked against that verb's schema; one option per entry of VERBS. */
export const VerbCall = z.discriminatedUnion(
  'verb',
  VERB_NAMES.map(callOption) as [AnyVerbCallOption, ...AnyVerbCallOption[]],
);
export type VerbCall = z.infer<typeof VerbCall>;

const VerbCallResult = z.union(
  VERB_NAMES.map((name) => VERBS[name].result) as [AnyVerbResultSchema, ...AnyVerbResultSchema[]],
);

/** Whether agent code runs sandboxed here; the Agent panel shows a persistent line when it does not. */
export const SandboxInfo = z.object({
  available: z.boolean(),
  /** Why not, when not (e.g. bubblewrap is not installed). */
  reason: z.string(),
});
export type SandboxInfo = z.infer<typeof SandboxInfo>;

export const verbsRequests = {
  /** Whether run-file / execute-code run in a sandbox on this machine. */
  'verbs.sandbox': request(z.object({}), SandboxInfo),
  /** The verbs this host serves: names, descriptions and input JSON Schemas. */
  'verbs.list': request(z.object({}), z.object({ verbs: z.array(VerbInfo) })),
  /** Runs one verb on behalf of the agent (writes are marked with origin 'agent'). Errors carry the usual codes. */
  'verbs.call': request(VerbCall, VerbCallResult),
} as const;

export const verbsEvents = {} as const;

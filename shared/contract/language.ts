import { z } from 'zod';
import { request } from './define';
import { RelPath } from './workspace';

/*
 * The Python language server (pyright, run by main) as the renderer sees it. Documents are addressed by
 * workspace path; URIs, versions on the server's side and notebook-to-virtual-document mapping are main's
 * concern. Positions are LSP's: 0-based line, UTF-16 `character`. `cell` (a notebook cell's id) is set where
 * a position, range or location lies in a notebook cell; it is absent for plain files.
 *
 * Every request answers quickly and never fails for a slow, starting or dead server: it answers the empty
 * result instead (the status line tells why). A request with a `requestId` may be cancelled by
 * `language.cancel`; a newer request of the same kind for the same document supersedes an older one.
 */

export const LspPosition = z.object({ line: z.number().int().min(0), character: z.number().int().min(0) });
export type LspPosition = z.infer<typeof LspPosition>;

export const LspRange = z.object({ start: LspPosition, end: LspPosition });
export type LspRange = z.infer<typeof LspRange>;

/**
 * A place in the workspace: a file (or a notebook's cell). A definition may also lie in a library outside the
 * workspace (the standard library's stubs, site-packages): then `library` is set, `path` is that file's absolute
 * path, and `language.readLibraryFile` serves it read-only. Other places outside the workspace are not sent.
 */
export const LspLocation = z.object({
  path: RelPath,
  range: LspRange,
  cell: z.string().optional(),
  library: z.boolean().optional(),
});
export type LspLocation = z.infer<typeof LspLocation>;

export const LspTextEdit = z.object({ range: LspRange, newText: z.string(), cell: z.string().optional() });
export type LspTextEdit = z.infer<typeof LspTextEdit>;

export const DiagnosticSeverity = z.enum(['error', 'warning', 'information', 'hint']);
export type DiagnosticSeverity = z.infer<typeof DiagnosticSeverity>;

export const LspDiagnostic = z.object({
  range: LspRange,
  severity: DiagnosticSeverity,
  message: z.string(),
  /** `Pyright`. */
  source: z.string().optional(),
  /** The rule, e.g. `reportUndefinedVariable`. */
  code: z.string().optional(),
  /** Unused or deprecated code, shown faded or struck through. */
  tags: z.array(z.enum(['unnecessary', 'deprecated'])).optional(),
  cell: z.string().optional(),
});
export type LspDiagnostic = z.infer<typeof LspDiagnostic>;

/** All of one document's diagnostics (an empty list clears them). */
export const DocumentDiagnostics = z.object({
  path: RelPath,
  /** The document version they were computed for; null for a file the renderer does not have open. */
  version: z.number().int().nullable(),
  diagnostics: z.array(LspDiagnostic),
});
export type DocumentDiagnostics = z.infer<typeof DocumentDiagnostics>;

/** Monaco's names for LSP's completion and symbol kinds (the renderer maps them to icons). */
export const CompletionKind = z.enum([
  'text',
  'method',
  'function',
  'constructor',
  'field',
  'variable',
  'class',
  'interface',
  'module',
  'property',
  'unit',
  'value',
  'enum',
  'keyword',
  'snippet',
  'color',
  'file',
  'reference',
  'folder',
  'enumMember',
  'constant',
  'struct',
  'event',
  'operator',
  'typeParameter',
]);
export type CompletionKind = z.infer<typeof CompletionKind>;

export const SymbolKind = z.enum([
  'file',
  'module',
  'namespace',
  'package',
  'class',
  'method',
  'property',
  'field',
  'constructor',
  'enum',
  'interface',
  'function',
  'variable',
  'constant',
  'string',
  'number',
  'boolean',
  'array',
  'object',
  'key',
  'null',
  'enumMember',
  'struct',
  'event',
  'operator',
  'typeParameter',
]);
export type SymbolKind = z.infer<typeof SymbolKind>;

/** Markdown as the server wrote it (Monaco renders it; no HTML is trusted). */
export const Markup = z.object({ kind: z.enum(['markdown', 'plaintext']), value: z.string() });
export type Markup = z.infer<typeof Markup>;

export const CompletionEntry = z.object({
  label: z.string(),
  kind: CompletionKind,
  detail: z.string().optional(),
  documentation: Markup.optional(),
  insertText: z.string(),
  /** `insertText` is a snippet (`${1:x}`). */
  snippet: z.boolean(),
  sortText: z.string().optional(),
  filterText: z.string().optional(),
  /** What the item replaces; absent: the word at the cursor. */
  range: LspRange.optional(),
  /** Further edits, e.g. the import an auto-import completion adds. */
  additionalEdits: z.array(LspTextEdit).optional(),
  /** Pass to `language.resolveCompletion` for documentation and detail the list left out. */
  resolveIndex: z.number().int().optional(),
});
export type CompletionEntry = z.infer<typeof CompletionEntry>;

export const CompletionList = z.object({
  items: z.array(CompletionEntry),
  /** Typing on should ask again rather than filter this list. */
  isIncomplete: z.boolean(),
  /** Names this answer for `language.resolveCompletion`; 0 when there is nothing to resolve. */
  resultId: z.number().int(),
});
export type CompletionList = z.infer<typeof CompletionList>;

export const Hover = z.object({ contents: Markup, range: LspRange.optional() });
export type Hover = z.infer<typeof Hover>;

export const SignatureHelp = z.object({
  signatures: z.array(
    z.object({
      label: z.string(),
      documentation: Markup.optional(),
      /** Each parameter as [start, end) offsets into `label`. */
      parameters: z.array(
        z.object({ label: z.tuple([z.number().int(), z.number().int()]), documentation: Markup.optional() }),
      ),
    }),
  ),
  activeSignature: z.number().int(),
  activeParameter: z.number().int(),
});
export type SignatureHelp = z.infer<typeof SignatureHelp>;

export interface DocumentSymbol {
  name: string;
  detail?: string;
  kind: SymbolKind;
  range: LspRange;
  selectionRange: LspRange;
  children: DocumentSymbol[];
}
export const DocumentSymbol: z.ZodType<DocumentSymbol> = z.lazy(() =>
  z.object({
    name: z.string(),
    detail: z.string().optional(),
    kind: SymbolKind,
    range: LspRange,
    selectionRange: LspRange,
    children: z.array(DocumentSymbol),
  }),
);

export const WorkspaceSymbol = z.object({
  name: z.string(),
  kind: SymbolKind,
  containerName: z.string().optional(),
  location: LspLocation,
});
export type WorkspaceSymbol = z.infer<typeof WorkspaceSymbol>;

/** One notebook cell a rename or code action changes: its source before and after. */
export const CellEdits = z.object({ cell: z.string(), oldText: z.string(), newText: z.string() });
export type CellEdits = z.infer<typeof CellEdits>;

/**
 * The edits of one file of a rename or code action, with the content they apply to. For a notebook, each
 * edit names its `cell`, `cells` holds every changed cell's source, and the edits go to the renderer's
 * notebook (its undo and save), never to disk: `baseHash` is null and `oldText`/`newText` are its code cells
 * as the server read them, one document.
 */
export const FileEdits = z.object({
  path: RelPath,
  edits: z.array(LspTextEdit),
  /** The file's text with the edits applied, for the preview; applying checks the file still holds the base. */
  newText: z.string(),
  /** The file's text the edits apply to. */
  oldText: z.string(),
  /** The hash of the file on disk the edits apply to; null when the file is open with unsaved changes. */
  baseHash: z.string().nullable(),
  cells: z.array(CellEdits).optional(),
});
export type FileEdits = z.infer<typeof FileEdits>;

/** A set of edits across files, shown to the operator before anything is written. */
export const EditPreview = z.object({
  /** Pass to `language.applyEdits`; each preview applies at most once. */
  previewId: z.number().int(),
  files: z.array(FileEdits),
});
export type EditPreview = z.infer<typeof EditPreview>;

export const CodeAction = z.object({
  title: z.string(),
  /** `quickfix`, `refactor`, `source.organizeImports` ... */
  kind: z.string().optional(),
  isPreferred: z.boolean().optional(),
  /** The edits it makes, previewed like a rename when they reach other files. */
  edit: EditPreview.optional(),
  /** The diagnostics it fixes. */
  diagnostics: z.array(LspDiagnostic).optional(),
});
export type CodeAction = z.infer<typeof CodeAction>;

export const LanguageServerState = z.enum([
  /** `python.languageServer: off`. */
  'off',
  /** Not started: no Python document open yet, or stopped after being idle. */
  'idle',
  'starting',
  'ready',
  /** Crashed; started again after a back-off. */
  'restarting',
  /** Crashed too often, or could not start at all; `message` says why. */
  'failed',
]);
export type LanguageServerState = z.infer<typeof LanguageServerState>;

export const LanguageStatus = z.object({
  state: LanguageServerState,
  /** `pyright 1.1.414`. */
  server: z.string(),
  /** A line for the status area: what the server does now, or why it does not run. */
  message: z.string(),
  /** The interpreter whose site-packages the server reads; null when none was found. */
  interpreter: z.string().nullable(),
  /** The workspace is untrusted: the project's interpreter settings (pythonPath, venvPath, venv) are ignored. */
  restricted: z.boolean(),
  /** The project config the server reads (`pyrightconfig.json`, `pyproject.toml`), if any. */
  projectConfig: z.string().nullable(),
  /** What the running server offers (all false until it is ready). */
  capabilities: z.object({ formatting: z.boolean(), rangeFormatting: z.boolean(), codeActions: z.boolean() }),
});
export type LanguageStatus = z.infer<typeof LanguageStatus>;

/** A document position, and optionally an id `language.cancel` can name. */
const At = z.object({
  path: RelPath,
  position: LspPosition,
  cell: z.string().optional(),
  requestId: z.number().int().optional(),
});

const TextChange = z.object({
  /** Absent: `text` is the whole document. */
  range: LspRange.optional(),
  text: z.string(),
});

export const languageRequests = {
  /** The renderer opened a Python buffer (a tab). Starts the server if it is not running (without waiting for it). */
  'language.didOpen': request(
    z.object({ path: RelPath, version: z.number().int(), text: z.string() }),
    z.object({ accepted: z.boolean() }),
  ),
  /** The buffer changed: edits in order, as Monaco reports them, each against the text after the previous one. */
  'language.didChange': request(
    z.object({ path: RelPath, version: z.number().int(), changes: z.array(TextChange) }),
    z.object({ accepted: z.boolean() }),
  ),
  /** The tab closed: the server reads the file from disk again. */
  'language.didClose': request(z.object({ path: RelPath }), z.object({ accepted: z.boolean() })),
  'language.completion': request(At.extend({ triggerCharacter: z.string().optional() }), CompletionList.nullable()),
  'language.resolveCompletion': request(
    z.object({ resultId: z.number().int(), resolveIndex: z.number().int() }),
    z.object({ detail: z.string().optional(), documentation: Markup.optional() }),
  ),
  'language.hover': request(At, Hover.nullable()),
  'language.signatureHelp': request(At, SignatureHelp.nullable()),
  /** Go to definition / declaration / type definition: places in the workspace (files it opens) or in a library. */
  'language.definition': request(
    At.extend({ kind: z.enum(['definition', 'declaration', 'typeDefinition']).default('definition') }),
    z.array(LspLocation),
  ),
  /**
   * The text of a library file a definition pointed at (`LspLocation.library`), to show read-only. Only files the
   * server named in an answer are served: anything else is E_OUTSIDE_WORKSPACE.
   */
  'language.readLibraryFile': request(z.object({ path: z.string().max(4096) }), z.object({ text: z.string() })),
  'language.references': request(At.extend({ includeDeclaration: z.boolean().default(true) }), z.array(LspLocation)),
  /** Whether the name at the position can be renamed, and its range; null: it cannot. */
  'language.prepareRename': request(At, z.object({ range: LspRange, placeholder: z.string() }).nullable()),
  /** The edits renaming the symbol makes in every file, as a preview; nothing is written. */
  'language.rename': request(At.extend({ newName: z.string().min(1) }), EditPreview),
  /**
   * Writes a preview's files through the workspace (the change feed and local history see them). A file whose
   * content moved on since the preview is not written: E_CHANGED_ON_DISK, and no file of the preview is.
   * Files open with unsaved changes (baseHash null) are returned in `toBuffers`: the renderer applies them to
   * the buffer, as VS Code does, so unsaved work is neither saved nor lost.
   */
  'language.applyEdits': request(
    z.object({ previewId: z.number().int() }),
    z.object({ written: z.array(RelPath), toBuffers: z.array(FileEdits) }),
  ),
  /** Not cancellable: identical requests in flight are shared (the breadcrumb, the outline and Monaco ask at once). */
  'language.documentSymbols': request(z.object({ path: RelPath }), z.array(DocumentSymbol)),
  'language.workspaceSymbols': request(
    z.object({ query: z.string(), requestId: z.number().int().optional() }),
    z.array(WorkspaceSymbol),
  ),
  /** Edits formatting the document (or `range`); empty when the server offers no formatting. */
  'language.format': request(
    z.object({
      path: RelPath,
      range: LspRange.optional(),
      tabSize: z.number().int().min(1).max(16),
      insertSpaces: z.boolean(),
      requestId: z.number().int().optional(),
    }),
    z.array(LspTextEdit),
  ),
  'language.codeActions': request(
    z.object({
      path: RelPath,
      range: LspRange,
      cell: z.string().optional(),
      /** Only quick fixes (the light bulb), or every action. */
      only: z.enum(['quickfix', 'all']).default('all'),
      requestId: z.number().int().optional(),
    }),
    z.array(CodeAction),
  ),
  /** The renderer no longer wants the answer to `requestId` (the cursor moved, the list closed). */
  'language.cancel': request(z.object({ requestId: z.number().int() }), z.object({ cancelled: z.boolean() })),
  'language.status': request(z.object({}), LanguageStatus),
  /** Diagnostics of every document the renderer may show (open files; the whole workspace with that pref). */
  'language.allDiagnostics': request(z.object({}), z.array(DocumentDiagnostics)),
} as const;

export const languageEvents = {
  /** A document's diagnostics changed (pushed as the server publishes them). */
  'language.diagnostics': DocumentDiagnostics,
  'language.statusChanged': LanguageStatus,
} as const;

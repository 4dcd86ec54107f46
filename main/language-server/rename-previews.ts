import * as lsp from 'vscode-languageserver-protocol/node';
import type { EditPreview, FileEdits, LspPosition, LspRange, LspTextEdit } from '../../shared/contract';
import { KilnError } from '../../shared/errors';
import type { LanguageServer } from './supervision';
import { applyTextEdits } from './text';

export interface EditPreviewOptions {
  /** The file on disk (through the workspace's guard). */
  readFile(rel: string): Promise<{ text: string; hash: string }>;
  /**
   * Documents that exist only in the server's memory (notebooks' virtual documents): a preview takes their
   * open text and hands their edits back as buffers, never reading or writing them on disk.
   */
  inMemory?(rel: string): boolean;
  /** Writes through the workspace, so the change feed and local history see it; refuses when `expectedHash` is stale. */
  writeFile(rel: string, text: string, expectedHash: string): Promise<void>;
}

/**
 * Rename and quick-fix edits as previews: each file's text before and after, kept by id until applied. Nothing is
 * written until the operator applies a preview, and then only over the text it was computed against.
 */
export class EditPreviews {
  private readonly previews = new Map<number, EditPreview>();
  private nextId = 1;

  constructor(
    private readonly server: LanguageServer,
    private readonly options: EditPreviewOptions,
  ) {}

  async prepareRename(
    rel: string,
    position: LspPosition,
    requestId?: number,
  ): Promise<{ range: LspRange; placeholder: string } | null> {
    const result = await this.server.ask(
      lsp.PrepareRenameRequest.type,
      { textDocument: this.server.textDocument(rel), position },
      `prepareRename:${rel}`,
      requestId,
    );
    if (!result) return null;
    const text = this.server.docs.get(rel)?.text;
    if ('start' in result) return { range: result, placeholder: textIn(text, result) };
    if ('placeholder' in result) return { range: result.range, placeholder: result.placeholder };
    return null;
  }

  /** The rename's edits across files as a preview; nothing is written here. */
  async rename(rel: string, position: LspPosition, newName: string, requestId?: number): Promise<EditPreview> {
    const asked = this.server.docs.snapshot();
    const [result, references] = await Promise.all([
      this.server.ask(
        lsp.RenameRequest.type,
        { textDocument: this.server.textDocument(rel), position, newName },
        `rename:${rel}`,
        requestId,
      ),
      this.options.inMemory
        ? this.server.ask(
            lsp.ReferencesRequest.type,
            { textDocument: this.server.textDocument(rel), position, context: { includeDeclaration: true } },
            `renameReferences:${rel}`,
            undefined,
          )
        : null,
    ]);
    if (result) this.addInMemoryReferences(result, references ?? [], newName);
    if (!result) {
      if (this.server.pid === undefined)
        throw new KilnError(
          'E_BUSY',
          'The Python language server is not running; try the rename again when it is ready.',
        );
      throw new KilnError('E_BAD_REQUEST', 'Nothing to rename here.');
    }
    return this.preview(result, asked);
  }

  /**
   * Pyright renames across files only in the files it found on disk, so documents held in memory (notebooks)
   * are left out although their references are found: each such reference becomes the rename's edit there,
   * as pyright makes its own (a reference's range replaced by the new name). Documents the edit already
   * covers are left as the server made them.
   */
  private addInMemoryReferences(edit: lsp.WorkspaceEdit, references: lsp.Location[], newName: string): void {
    const covered = new Set([
      ...Object.keys(edit.changes ?? {}),
      ...(edit.documentChanges ?? []).flatMap((c) => ('textDocument' in c ? [c.textDocument.uri] : [])),
    ]);
    for (const reference of references) {
      const rel = this.server.uris.toPath(reference.uri);
      if (rel === null || covered.has(reference.uri) || !this.options.inMemory?.(rel)) continue;
      const text = lsp.TextEdit.replace(reference.range, newName);
      if (edit.documentChanges) {
        const open = this.server.docs.get(rel);
        const entry = edit.documentChanges.find(
          (c): c is lsp.TextDocumentEdit => 'textDocument' in c && c.textDocument.uri === reference.uri,
        );
        if (entry) entry.edits.push(text);
        else
          edit.documentChanges.push({
            textDocument: { uri: reference.uri, version: open?.version ?? null },
            edits: [text],
          });
      } else (edit.changes ??= {})[reference.uri] = [...(edit.changes?.[reference.uri] ?? []), text];
    }
  }

  /**
   * Turns a WorkspaceEdit into a preview: each file's text before and after, and whether it is a dirty buffer.
   * `asked` is the open documents when the server was asked: one changed since has edits for text it no longer holds.
   */
  async preview(edit: lsp.WorkspaceEdit, asked: ReadonlyMap<string, unknown>): Promise<EditPreview> {
    const byFile = new Map<string, LspTextEdit[]>();
    const addEdits = (uri: string, edits: (lsp.TextEdit | lsp.AnnotatedTextEdit | lsp.SnippetTextEdit)[]) => {
      const rel = this.server.uris.toPath(uri);
      if (rel === null)
        throw new KilnError('E_OUTSIDE_WORKSPACE', `The edit reaches a file outside the workspace: ${uri}`);
      byFile.set(rel, [
        ...(byFile.get(rel) ?? []),
        ...edits.map((e) => ({ range: e.range, newText: 'newText' in e ? e.newText : e.snippet.value })),
      ]);
    };
    for (const [uri, edits] of Object.entries(edit.changes ?? {})) addEdits(uri, edits);
    for (const change of edit.documentChanges ?? []) {
      if ('textDocument' in change) addEdits(change.textDocument.uri, change.edits);
      else
        throw new KilnError(
          'E_BAD_REQUEST',
          'The edit creates, renames or deletes files, which Kiln does not apply from here.',
        );
    }
    const files: FileEdits[] = [];
    for (const [rel, edits] of byFile) {
      const open = this.server.docs.get(rel);
      if (open !== asked.get(rel))
        throw new KilnError('E_CHANGED_ON_DISK', `${rel} changed while the edits were computed; try again.`);
      if (this.options.inMemory?.(rel)) {
        if (!open) throw new KilnError('E_NOT_FOUND', `${rel} is no longer open; run the action again.`);
        files.push({ path: rel, edits, oldText: open.text, newText: applyTextEdits(open.text, edits), baseHash: null });
        continue;
      }
      const disk = await this.options.readFile(rel);
      // The server computed the edits against the open buffer where there is one.
      const oldText = open?.text ?? disk.text;
      files.push({
        path: rel,
        edits,
        oldText,
        newText: applyTextEdits(oldText, edits),
        baseHash: open && open.text !== disk.text ? null : disk.hash,
      });
    }
    files.sort((a, b) => a.path.localeCompare(b.path));
    const preview = { previewId: this.nextId++, files };
    this.previews.set(preview.previewId, preview);
    // Only recent previews can be applied; older ones are let go.
    for (const id of this.previews.keys()) if (id < preview.previewId - 20) this.previews.delete(id);
    return preview;
  }

  /**
   * Applies a preview: files whose disk text is the base are written through the workspace (all checked before
   * any is written); dirty buffers go back to the renderer to apply in the buffer.
   */
  async applyEdits(previewId: number): Promise<{ written: string[]; toBuffers: FileEdits[] }> {
    const preview = this.previews.get(previewId);
    if (!preview) throw new KilnError('E_NOT_FOUND', 'This preview is no longer current; run the rename again.');
    this.previews.delete(previewId);
    const toDisk = preview.files.filter((f) => f.baseHash !== null);
    for (const file of toDisk) {
      const disk = await this.options.readFile(file.path);
      if (disk.hash !== file.baseHash || disk.text !== file.oldText) {
        throw new KilnError('E_CHANGED_ON_DISK', `${file.path} changed since the preview; nothing was written.`, {
          path: file.path,
          diskHash: disk.hash,
          baselineHash: file.baseHash!,
        });
      }
    }
    const written: string[] = [];
    for (const file of toDisk) {
      await this.options.writeFile(file.path, file.newText, file.baseHash!);
      written.push(file.path);
    }
    return { written, toBuffers: preview.files.filter((f) => f.baseHash === null) };
  }
}

function textIn(text: string | undefined, range: LspRange): string {
  if (text === undefined) return '';
  const lines = text.split('\n');
  if (range.start.line !== range.end.line) return '';
  return (lines[range.start.line] ?? '').slice(range.start.character, range.end.character);
}

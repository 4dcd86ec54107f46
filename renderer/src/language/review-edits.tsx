import type { CellEdits, EditPreview, FileEdits, KilnBridge } from '../../../shared/contract';
import { errorText, useBridge } from '../base';
import type { TextModels } from '../editor';
import type { DialogRequest, Toasts } from '../ui';
import { toMonacoRange } from './language-client';
import { notebookEditTarget } from './notebook-edits';

interface LineChange {
  line: number;
  before: string;
  after: string;
}

/** The lines edits change in a text, before and after (renames and most quick fixes keep the line count). */
export function changedLines(text: Pick<FileEdits, 'oldText' | 'newText' | 'edits'>): LineChange[] {
  const before = text.oldText.split('\n');
  const after = text.newText.split('\n');
  if (before.length === after.length) {
    const changes: LineChange[] = [];
    before.forEach((line, i) => line !== after[i] && changes.push({ line: i + 1, before: line, after: after[i] }));
    return changes;
  }
  return text.edits.map((e) => ({
    line: e.range.start.line + 1,
    before: before[e.range.start.line] ?? '',
    after: e.newText,
  }));
}

/** What a file's preview shows: its changed lines, or for a notebook each changed cell's, under the cell's name. */
function changedParts(bridge: KilnBridge, file: FileEdits): { label: string | null; lines: LineChange[] }[] {
  if (!file.cells) return [{ label: null, lines: changedLines(file) }];
  const target = notebookEditTarget(bridge, file.path);
  return file.cells.map((cell) => {
    const number = target?.numberOf(cell.cell);
    return {
      label: number ? `Cell ${number}` : 'Cell',
      lines: changedLines({ ...cell, edits: file.edits.filter((e) => e.cell === cell.cell) }),
    };
  });
}

function ChangedLine({ change }: { change: LineChange }) {
  return (
    <div className="edit-preview-line">
      <span className="edit-preview-lineno">{change.line}</span>
      <code className="edit-preview-before">- {change.before}</code>
      <code className="edit-preview-after">+ {change.after}</code>
    </div>
  );
}

/** The preview body: every file the edits change, with each changed line before and after. */
export function EditPreviewList({ preview }: { preview: EditPreview }) {
  const bridge = useBridge();
  return (
    <div className="edit-preview" role="list" aria-label="Files to change">
      {preview.files.map((file) => (
        <div key={file.path} className="edit-preview-file" role="listitem" aria-label={file.path}>
          <div className="edit-preview-path">
            {file.path}
            <span className="edit-preview-count">
              {file.edits.length} {file.edits.length === 1 ? 'change' : 'changes'}
              {file.cells ? ' · in the open notebook' : file.baseHash === null ? ' · unsaved buffer' : ''}
            </span>
          </div>
          {changedParts(bridge, file).map((part, i) => (
            <div key={i} className="edit-preview-part">
              {part.label && <div className="edit-preview-cell">{part.label}</div>}
              {part.lines.map((change) => (
                <ChangedLine key={change.line} change={change} />
              ))}
            </div>
          ))}
        </div>
      ))}
    </div>
  );
}

/**
 * How a notebook of the preview takes its new cell sources, checked before anything is written: a cell that moved
 * on since the preview (typed in meanwhile, deleted) refuses the whole preview. A notebook with a view takes them
 * through the view (one undoable step, saved by the operator). One open only in main (an agent opened it, no tab)
 * takes them in main's notebook, and is saved when it had no unsaved changes, as a closed file is written.
 */
async function prepareNotebook(
  bridge: KilnBridge,
  file: FileEdits & { cells: CellEdits[] },
): Promise<() => Promise<unknown>> {
  const edits = file.cells.map((c) => ({ cellId: c.cell, source: c.newText }));
  const stale = () => new Error(`${file.path} changed since the preview; nothing was changed.`);
  const target = notebookEditTarget(bridge, file.path);
  if (target) {
    if (file.cells.some((c) => target.sourceOf(c.cell) !== c.oldText)) throw stale();
    return () => target.replaceSources(edits);
  }
  const doc = await bridge.request('notebook.get', { path: file.path }).catch(() => null);
  if (!doc) throw new Error(`${file.path} is no longer open; nothing was changed.`);
  const sources = new Map(doc.cells.map((c) => [c.id, c.source]));
  if (file.cells.some((c) => sources.get(c.cell) !== c.oldText)) throw stale();
  return async () => {
    await bridge.request('notebook.editCells', { path: file.path, edits });
    if (!doc.dirty) await bridge.request('notebook.save', { path: file.path, force: false });
  };
}

/**
 * Asks the operator about a preview and applies it if accepted: files on disk are written by main (the change
 * feed reloads their tabs), buffers with unsaved changes are edited in place (undoable, saved by the operator),
 * and notebooks' cells are edited by the notebook (one undoable step, saved by the operator).
 */
export async function reviewAndApply(options: {
  bridge: KilnBridge;
  textModels: TextModels;
  ask: <V extends string>(request: DialogRequest<V>) => Promise<V>;
  toasts: Toasts;
  preview: EditPreview | Promise<EditPreview>;
  title: string;
}): Promise<void> {
  const { bridge, textModels, ask, toasts, title } = options;
  let preview: EditPreview;
  try {
    preview = await options.preview;
  } catch (err) {
    toasts.error(errorText(err, 'Could not compute the edits'));
    return;
  }
  if (preview.files.length === 0) {
    toasts.show({ kind: 'info', message: 'Nothing to change.', timeoutMs: 3000 });
    return;
  }
  const files = preview.files.length;
  const answer = await ask({
    title: `${title}: ${files} ${files === 1 ? 'file' : 'files'}`,
    message: <EditPreviewList preview={preview} />,
    buttons: [
      { label: 'Cancel', value: 'cancel' },
      { label: 'Apply', value: 'apply', primary: true },
    ],
    cancelValue: 'cancel',
  });
  if (answer !== 'apply') return;
  try {
    // Every notebook is checked before main writes any file, so a refusal leaves the rename undone, not half done.
    const notebooks = new Map<string, () => Promise<unknown>>();
    for (const file of preview.files) {
      if (file.cells) notebooks.set(file.path, await prepareNotebook(bridge, { ...file, cells: file.cells }));
    }
    const result = await bridge.request('language.applyEdits', { previewId: preview.previewId });
    for (const file of result.toBuffers) {
      const notebook = notebooks.get(file.path);
      if (notebook) {
        await notebook();
        continue;
      }
      const model = textModels.modelIfOpen(file.path);
      if (!model) continue;
      model.pushEditOperations(
        [],
        file.edits.map((e) => ({ range: toMonacoRange(e.range), text: e.newText })),
        () => null,
      );
      model.pushStackElement();
    }
  } catch (err) {
    toasts.error(errorText(err, 'Could not apply the edits'));
  }
}

import type { EditPreview, FileEdits, KilnBridge } from '../../../shared/contract';
import { errorText } from '../base';
import type { TextModels } from '../editor';
import type { DialogRequest, Toasts } from '../ui';
import { toMonacoRange } from './language-client';

interface LineChange {
  line: number;
  before: string;
  after: string;
}

/** The lines a file's edits change, before and after (renames and most quick fixes keep the line count). */
export function changedLines(file: FileEdits): LineChange[] {
  const before = file.oldText.split('\n');
  const after = file.newText.split('\n');
  if (before.length === after.length) {
    const changes: LineChange[] = [];
    before.forEach((line, i) => line !== after[i] && changes.push({ line: i + 1, before: line, after: after[i] }));
    return changes;
  }
  return file.edits.map((e) => ({
    line: e.range.start.line + 1,
    before: before[e.range.start.line] ?? '',
    after: e.newText,
  }));
}

/** The preview body: every file the edits change, with each changed line before and after. */
export function EditPreviewList({ preview }: { preview: EditPreview }) {
  return (
    <div className="edit-preview" role="list" aria-label="Files to change">
      {preview.files.map((file) => (
        <div key={file.path} className="edit-preview-file" role="listitem" aria-label={file.path}>
          <div className="edit-preview-path">
            {file.path}
            <span className="edit-preview-count">
              {file.edits.length} {file.edits.length === 1 ? 'change' : 'changes'}
              {file.baseHash === null ? ' · unsaved buffer' : ''}
            </span>
          </div>
          {changedLines(file).map((change) => (
            <div key={change.line} className="edit-preview-line">
              <span className="edit-preview-lineno">{change.line}</span>
              <code className="edit-preview-before">- {change.before}</code>
              <code className="edit-preview-after">+ {change.after}</code>
            </div>
          ))}
        </div>
      ))}
    </div>
  );
}

/**
 * Asks the operator about a preview and applies it if accepted: files on disk are written by main (the change
 * feed reloads their tabs), buffers with unsaved changes are edited in place (undoable, saved by the operator).
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
    const result = await bridge.request('language.applyEdits', { previewId: preview.previewId });
    for (const file of result.toBuffers) {
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

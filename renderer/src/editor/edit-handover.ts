import type { monaco } from './monaco-setup';
import type { OpenFile, OpenFilesStore } from './open-files';
import type { TextModels } from './text-models';

type Model = monaco.editor.ITextModel;

/** Quiet time after the last key before a model's whole text is read and handed to the open-files store. */
const HAND_OVER_AFTER_MS = 150;

interface Pending {
  timer: ReturnType<typeof setTimeout>;
  /** The tab's revision when the key was typed: a reload since replaced the buffer, so these keys are not its. */
  revision: number;
  handOver: () => void;
}

/**
 * Reports an editor's edits to the open-files store without reading the whole text on every key (milliseconds
 * a key in a 5 MB file): the dirty flag, exact, comes from the model's length and its alternative version id (the
 * same id means the same text, as after undoing back to the save); the text itself follows after a pause in
 * typing, or at once when the store needs it (save, backup, compare). Returns the stop function.
 */
export function reportEdits(
  editor: monaco.editor.IStandaloneCodeEditor,
  store: OpenFilesStore,
  textModels: TextModels,
  isApplying: () => boolean,
): () => void {
  const pending = new Map<Model, Pending>();
  /** Per model: the disk text its content last matched, and the alternative version id it matched at. */
  const clean = new WeakMap<Model, { diskText: string; version: number }>();

  const markClean = (model: Model, file: OpenFile) =>
    clean.set(model, { diskText: file.diskText, version: model.getAlternativeVersionId() });

  const isDirty = (model: Model, file: OpenFile): boolean => {
    if (model.getValueLength() !== file.diskText.length) return true;
    const known = clean.get(model);
    if (known && known.version === model.getAlternativeVersionId() && known.diskText === file.diskText) return false;
    // Same length, text not known: the one case that reads it all (typing back to the saved length).
    if (model.getValue() !== file.diskText) return true;
    markClean(model, file);
    return false;
  };

  const handOver = (model: Model, entry: Pending) => {
    clearTimeout(entry.timer);
    pending.delete(model);
    store.editsHandedOver(entry.handOver);
    if (model.isDisposed()) return;
    const owner = textModels.pathOf(model);
    if (!owner || store.get(owner)?.revision !== entry.revision) return;
    store.setBuffer(owner, model.getValue());
    const file = store.get(owner);
    if (file && !file.dirty) markClean(model, file);
  };

  const sub = editor.onDidChangeModelContent(() => {
    if (isApplying()) return;
    const model = editor.getModel();
    const owner = textModels.pathOf(model);
    const file = owner ? store.get(owner) : undefined;
    if (!model || !owner || !file) return;
    let entry = pending.get(model);
    if (entry) clearTimeout(entry.timer);
    else {
      const created: Pending = { timer: undefined!, revision: file.revision, handOver: () => handOver(model, created) };
      entry = created;
      pending.set(model, entry);
    }
    const current = entry;
    current.revision = file.revision;
    current.timer = setTimeout(current.handOver, HAND_OVER_AFTER_MS);
    store.markEdited(owner, isDirty(model, file), current.handOver);
  });

  return () => {
    sub.dispose();
    for (const entry of [...pending.values()]) entry.handOver();
  };
}

import type { KilnBridge } from '../../../shared/contract';
import { rekeyAfterMove } from '../../../shared/fs-change';
import { perBridge } from '../base';
import { languageForPath, monaco } from './monaco-setup';

interface TextModelEntry {
  model: monaco.editor.ITextModel;
  viewState: monaco.editor.ICodeEditorViewState | null;
  /** Large files are plain text whatever their name says (no tokenizing, no folding). */
  large: boolean;
}

// process-wide: Monaco's models are one registry per page, so their URIs must be unique across windows.
let uriSeq = 0;

/**
 * The one registry of Monaco text models, one per open path, kept across tab switches so undo history and
 * view state survive. A model's URI is fixed for its life, so it is never the key: a rename or move
 * re-keys the entry (same model, same undo history) and retags its language, unless the file is large.
 * It follows the change feed itself: a move (of the file or a folder holding it) re-keys its model.
 */
export class TextModels {
  private readonly entries = new Map<string, TextModelEntry>();

  constructor(bridge: KilnBridge) {
    // Lives as long as the window, as the models do.
    bridge.on('fs.change', (change) => change.type === 'moved' && this.rename(change.from, change.to));
  }

  modelFor(path: string, text: string, large: boolean): monaco.editor.ITextModel {
    const entry = this.entries.get(path);
    if (entry && !entry.model.isDisposed()) {
      if (entry.large !== large) {
        entry.large = large;
        monaco.editor.setModelLanguage(entry.model, languageOf(path, large));
      }
      return entry.model;
    }
    const uri = monaco.Uri.from({ scheme: 'kiln', path: `/${path}`, query: String(++uriSeq) });
    const model = monaco.editor.createModel(text, languageOf(path, large), uri);
    this.entries.set(path, { model, viewState: null, large });
    return model;
  }

  /** The model of an open path, if it has one (Go to Definition shows a place in it). */
  modelIfOpen(path: string): monaco.editor.ITextModel | undefined {
    const model = this.entries.get(path)?.model;
    return model && !model.isDisposed() ? model : undefined;
  }

  /** The open path a model belongs to. */
  pathOf(model: monaco.editor.ITextModel | null): string | undefined {
    if (!model) return undefined;
    for (const [path, entry] of this.entries) if (entry.model === model) return path;
    return undefined;
  }

  saveViewState(path: string, state: monaco.editor.ICodeEditorViewState | null): void {
    const entry = this.entries.get(path);
    if (entry) entry.viewState = state;
  }

  viewState(path: string): monaco.editor.ICodeEditorViewState | null {
    return this.entries.get(path)?.viewState ?? null;
  }

  /** Re-keys the models at or under `from` to `to` (a move, or a tab saved under another name). */
  rename(from: string, to: string): void {
    for (const [, path, entry] of rekeyAfterMove(this.entries, from, to)) {
      if (!entry.large) monaco.editor.setModelLanguage(entry.model, languageOf(path, false));
    }
  }

  /** Drops the models of files that are no longer open. */
  disposeExcept(openPaths: Set<string>): void {
    for (const [path, entry] of [...this.entries]) {
      if (openPaths.has(path)) continue;
      entry.model.dispose();
      this.entries.delete(path);
    }
  }
}

function languageOf(path: string, large: boolean): string {
  return large ? 'plaintext' : languageForPath(path);
}

export const useTextModels = perBridge((bridge) => new TextModels(bridge));

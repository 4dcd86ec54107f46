import type { KilnBridge, ReplaceFileOutcome, SearchFileResult, SearchQuery } from '../../../shared/contract';
import { replaceMatches, searchRegExp } from '../../../shared/replace';
import { Store, errorText, perBridge } from '../base';
import { OpenFilesStore, useOpenFilesStore } from '../editor';

export interface ReplaceState {
  /** The replace field is shown (VS Code's chevron, or Ctrl/Cmd+Shift+H). */
  shown: boolean;
  replacement: string;
  /** Bumped when Replace in Files asks for the replace field's focus. */
  focusTick: number;
  busy: boolean;
}

export interface ReplaceSummary {
  replaceId: string | null;
  files: (Omit<ReplaceFileOutcome, 'status'> & { status: ReplaceFileOutcome['status'] | 'buffer' })[];
}

/**
 * Replace in Files. Files go to main, which re-reads them and replaces only where the search saw each match; a text
 * file open in a tab with unsaved changes is not written under the operator: its buffer takes the replacement and
 * stays unsaved, as VS Code edits the open model.
 */
export class ReplaceStore extends Store<ReplaceState> {
  constructor(
    private readonly bridge: KilnBridge,
    private readonly openFiles: OpenFilesStore,
  ) {
    super({ shown: false, replacement: '', focusTick: 0, busy: false });
  }

  show(shown: boolean, focus = false): void {
    this.set({ shown, focusTick: focus ? this.state.focusTick + 1 : this.state.focusTick });
  }

  setReplacement(replacement: string): void {
    this.set({ replacement });
  }

  async replace(query: Required<SearchQuery>, files: SearchFileResult[]): Promise<ReplaceSummary> {
    const { replacement } = this.state;
    this.set({ busy: true });
    try {
      const outcomes: ReplaceSummary['files'] = [];
      const toMain: SearchFileResult[] = [];
      for (const file of files) {
        const open = this.openFiles.get(file.path);
        const inBuffer = open && open.dirty && open.status === 'ready' && !this.openFiles.isOwned(file.path);
        if (!inBuffer) {
          toMain.push(file);
          continue;
        }
        const result = replaceMatches(open.buffer, file.matches, searchRegExp(query), replacement, query.isRegex);
        if (result.stale) {
          outcomes.push({
            path: file.path,
            status: 'refused',
            replaced: 0,
            message: `${file.path} has unsaved changes since the search; nothing replaced: search again`,
          });
        } else {
          this.openFiles.replaceBuffer(file.path, result.text);
          outcomes.push({ path: file.path, status: 'buffer', replaced: result.replaced });
        }
      }
      let replaceId: string | null = null;
      if (toMain.length) {
        try {
          const result = await this.bridge.request('search.replace', { query, replacement, files: toMain });
          if (result.files.some((f) => f.status === 'written')) replaceId = result.replaceId;
          outcomes.push(...result.files);
        } catch (err) {
          const message = errorText(err);
          outcomes.push(...toMain.map((f) => ({ path: f.path, status: 'refused' as const, replaced: 0, message })));
        }
      }
      return { replaceId, files: outcomes };
    } finally {
      this.set({ busy: false });
    }
  }

  async undo(replaceId: string): Promise<ReplaceFileOutcome[]> {
    return (await this.bridge.request('search.undoReplace', { replaceId })).files;
  }
}

export const useReplaceStore = perBridge((bridge) => new ReplaceStore(bridge, useOpenFilesStore.of(bridge)));

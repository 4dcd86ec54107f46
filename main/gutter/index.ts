import type { GutterChange } from '../../shared/contract';

/** Where the editor's change gutter gets its line ranges (git's, against HEAD). */
export interface GutterSource {
  /** The changes of the file on disk, or of `text` (the editor's buffer) when given. */
  changesFor(relPath: string, text?: string): Promise<GutterChange[]>;
}

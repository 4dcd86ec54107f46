import type { GutterChange } from '../../shared/contract';

/**
 * Where the editor's change gutter gets its line ranges. The contract is fixed now; the git-backed
 * source comes later and replaces the empty one without touching the editor.
 */
export interface GutterSource {
  changesFor(relPath: string): Promise<GutterChange[]>;
}

export class EmptyGutterSource implements GutterSource {
  async changesFor(): Promise<GutterChange[]> {
    return [];
  }
}

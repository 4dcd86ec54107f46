import type { DocumentDiagnostics, KilnBridge, LspDiagnostic } from '../../../../shared/contract';
import { perBridge, Store } from '../../base';

/** The language server's diagnostics of notebooks, by notebook path (each carries its cell). */
interface NotebookDiagnosticsState {
  byPath: ReadonlyMap<string, readonly LspDiagnostic[]>;
}

const isNotebook = (path: string) => path.toLowerCase().endsWith('.ipynb');

/** Follows `language.diagnostics` for notebooks, from what main has now (a notebook opened after they came). */
export class NotebookDiagnosticsStore extends Store<NotebookDiagnosticsState> {
  constructor(bridge: KilnBridge) {
    super({ byPath: new Map() });
    let live = false;
    this.own(
      bridge.on('language.diagnostics', (update) => {
        live = true;
        this.apply([update]);
      }),
    );
    bridge
      .request('language.allDiagnostics', {})
      // An event that came meanwhile is newer than this answer for its notebook.
      .then((all) => this.apply(all.filter((d) => !live || !this.state.byPath.has(d.path))))
      .catch(() => undefined);
  }

  forCell(path: string, cellId: string): LspDiagnostic[] {
    return (this.state.byPath.get(path) ?? []).filter((d) => d.cell === cellId);
  }

  private apply(updates: readonly DocumentDiagnostics[]): void {
    const notebooks = updates.filter((u) => isNotebook(u.path));
    if (!notebooks.length) return;
    const byPath = new Map(this.state.byPath);
    for (const update of notebooks) {
      if (update.diagnostics.length) byPath.set(update.path, update.diagnostics);
      else byPath.delete(update.path);
    }
    this.set({ byPath });
  }
}

export const notebookDiagnostics = perBridge((bridge) => new NotebookDiagnosticsStore(bridge));

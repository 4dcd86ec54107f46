import type { NotebookCell, NotebookDocument } from '../../../shared/contract';
import type { NotebookRequests } from './notebook-requests';

/** Cells per request when the rest of a notebook follows its first screen: about a megabyte of a heavy notebook, one short task to parse. */
const PENDING_CELLS_CHUNK = 50;

/** Resolves once the page has painted (a frame, then a task), or soon in a page that does not paint (hidden). */
function afterPaint(): Promise<void> {
  if (typeof requestAnimationFrame !== 'function') return Promise.resolve();
  return new Promise((resolve) => {
    const fallback = setTimeout(resolve, 100);
    requestAnimationFrame(() =>
      setTimeout(() => {
        clearTimeout(fallback);
        resolve();
      }),
    );
  });
}

/** What fetching the rest of a document does with what arrives. */
export interface RestOfDocument {
  ask: NotebookRequests['ask'];
  /** A chunk of the cells, after those held. */
  append(cells: NotebookCell[]): void;
  /** The whole document, taken instead when the notebook changed in main meanwhile. */
  adopt(doc: NotebookDocument): void;
  /** Every cell is here (or will not come): requests waiting for them go ahead. */
  arrived(): void;
  /** Why the rest did not come. */
  failed(err: unknown): void;
}

/**
 * Whether the rest of an opened notebook is still arriving (a big notebook's first screen of cells comes first), as
 * a promise requests about cells wait for; the token tells an arrival that a newer document replaced it.
 */
export class CellsArriving {
  private arriving: { promise: Promise<void>; resolve: () => void } | null = null;
  /** Bumped by every adopted document: the rest of an earlier one stops arriving. */
  token = 0;

  /** Settles when every cell has arrived; null when they have. */
  get whole(): Promise<void> | null {
    return this.arriving?.promise ?? null;
  }

  /** Every cell is here (whatever waited goes ahead), or the rest is on its way. */
  setWhole(whole: boolean): void {
    if (whole) {
      this.arriving?.resolve();
      this.arriving = null;
    } else if (!this.arriving) {
      let resolve = () => {};
      const promise = new Promise<void>((r) => (resolve = r));
      this.arriving = { promise, resolve };
    }
  }

  /** The rest stops arriving and nothing waits for it any more (the session closed). */
  end(): void {
    this.token += 1;
    this.setWhole(true);
  }

  /**
   * The cells an open left out, in chunks, once the first ones painted. If the notebook changed in main
   * meanwhile, the whole document is taken instead; a document adopted meanwhile (reload, revert) ends this.
   */
  async fetchRest(doc: NotebookDocument, to: RestOfDocument): Promise<void> {
    if (!doc.pendingCells) return;
    const token = this.token;
    const end = doc.cells.length + doc.pendingCells;
    try {
      await afterPaint();
      for (let from = doc.cells.length; from < end && token === this.token;) {
        const count = Math.min(PENDING_CELLS_CHUNK, end - from);
        const chunk = await to.ask('notebook.cells', { from, count, rev: doc.rev, diskHash: doc.diskHash });
        if (token !== this.token) return;
        if (chunk.stale || chunk.cells.length === 0) {
          to.adopt(await to.ask('notebook.get', {}));
          return;
        }
        from += chunk.cells.length;
        to.append(chunk.cells);
      }
      if (token === this.token) to.arrived();
    } catch (err) {
      if (token !== this.token) return;
      // The cells held are still right; requests go ahead rather than wait for cells that will not come.
      to.failed(err);
      to.arrived();
    }
  }
}

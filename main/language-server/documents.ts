import type { LspRange } from '../../shared/contract';
import { offsetAt } from './text';

export interface OpenDocument {
  version: number;
  text: string;
}

/** The buffers the renderer has open, as the server sees them (so a restarted server gets them back). */
export class OpenDocuments {
  private readonly docs = new Map<string, OpenDocument>();

  get size(): number {
    return this.docs.size;
  }

  get(rel: string): OpenDocument | undefined {
    return this.docs.get(rel);
  }

  entries(): IterableIterator<[string, OpenDocument]> {
    return this.docs.entries();
  }

  /** The documents as they are now; a later change replaces an entry, so comparing entries tells what changed. */
  snapshot(): ReadonlyMap<string, OpenDocument> {
    return new Map(this.docs);
  }

  open(rel: string, version: number, text: string): void {
    this.docs.set(rel, { version, text });
  }

  /** Applies Monaco's changes in order; false when the document is not open. */
  change(rel: string, version: number, changes: readonly { range?: LspRange; text: string }[]): boolean {
    const doc = this.docs.get(rel);
    if (!doc) return false;
    let text = doc.text;
    for (const change of changes) {
      if (!change.range) text = change.text;
      else
        text =
          text.slice(0, offsetAt(text, change.range.start)) +
          change.text +
          text.slice(offsetAt(text, change.range.end));
    }
    this.docs.set(rel, { version, text });
    return true;
  }

  close(rel: string): boolean {
    return this.docs.delete(rel);
  }
}

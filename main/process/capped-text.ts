/** How much to keep of a text: its first `head` and last `tail` characters. */
export interface CapLimits {
  head: number;
  tail: number;
}

/** What a cap kept, and how many characters it dropped between the head and the tail. */
export interface CappedParts {
  head: string;
  tail: string;
  omitted: number;
}

/** A budget of `max` characters split between head and tail (the head gets the odd one). */
export function headAndTail(max: number): CapLimits {
  return { head: Math.ceil(max / 2), tail: Math.floor(max / 2) };
}

/**
 * Keeps the head and the tail of a stream as it arrives, so a runaway print loop cannot exhaust memory or a
 * model's context. Memory stays within the limits plus one trimming slack, whatever the stream's length.
 */
export class CappedText {
  private head = '';
  private tail = '';
  private dropped = 0;
  /** The tail is trimmed once it grows this far past its limit, not on every chunk. */
  private readonly slack: number;

  constructor(private readonly limits: CapLimits) {
    this.slack = Math.min(limits.tail, 65_536);
  }

  push(chunk: string): void {
    const headRoom = this.limits.head - this.head.length;
    if (headRoom > 0) {
      this.head += chunk.slice(0, headRoom);
      chunk = chunk.slice(headRoom);
    }
    if (!chunk) return;
    this.tail += chunk;
    if (this.tail.length > this.limits.tail + this.slack) this.trimTail();
  }

  parts(): CappedParts {
    this.trimTail();
    return { head: this.head, tail: this.tail, omitted: this.dropped };
  }

  /** The head and the tail, with a line between them saying how much was left out. */
  toString(): string {
    return joinWithNote(this.parts());
  }

  private trimTail(): void {
    const excess = this.tail.length - this.limits.tail;
    if (excess <= 0) return;
    this.dropped += excess;
    this.tail = this.tail.slice(excess);
  }
}

/** `text` cut to its head and tail. */
export function capText(text: string, limits: CapLimits): CappedParts {
  const capped = new CappedText(limits);
  capped.push(text);
  return capped.parts();
}

/** Parts as one text for a model or a log: what was dropped is a line that says how much. */
function joinWithNote({ head, tail, omitted }: CappedParts): string {
  if (omitted === 0) return head + tail;
  return `${head}\n[... ${omitted} characters of output omitted ...]\n${tail}`;
}

/** `text` within `max` characters: its middle dropped, with a note saying how much. */
export function trimMiddle(text: string, max: number): string {
  return joinWithNote(capText(text, headAndTail(max)));
}

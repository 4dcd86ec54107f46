import { randomBytes } from 'node:crypto';

/** How long a download ticket stays good: long enough for a drag out of the browser to be dropped. */
export const TICKET_TTL_MS = 60_000;
/** Tickets are asked for on every press of a tree row; the oldest unused ones go first past this many. */
const MAX_OUTSTANDING = 512;

export type TicketVerdict = { ok: true } | { ok: false; why: string };

/**
 * Single-use download tickets: a browser navigation carries no header, and the token must not ride its URL (a
 * download URL lands in the browser's download list and the drag's data). A ticket is random, names one path,
 * expires after `ttlMs` and is spent by its first use, whether that use succeeds or not.
 */
export class DownloadTickets {
  private readonly live = new Map<string, { path: string; expires: number }>();

  constructor(
    private readonly ttlMs = TICKET_TTL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  issue(path: string): string {
    this.prune();
    const ticket = randomBytes(24).toString('base64url');
    this.live.set(ticket, { path, expires: this.now() + this.ttlMs });
    // A Map iterates in insertion order: the first key is the oldest ticket.
    if (this.live.size > MAX_OUTSTANDING) this.live.delete(this.live.keys().next().value!);
    return ticket;
  }

  /** Spends `ticket` for `path`: good only if it is live and names exactly that path. */
  redeem(ticket: string | null, path: string): TicketVerdict {
    if (!ticket) return { ok: false, why: 'a download needs a ticket (ask the page for the download again)' };
    const entry = this.live.get(ticket);
    this.live.delete(ticket);
    if (!entry) return { ok: false, why: 'this download ticket is unknown or already used' };
    if (entry.expires <= this.now()) return { ok: false, why: 'this download ticket has expired' };
    if (entry.path !== path) return { ok: false, why: 'this download ticket is for another path' };
    return { ok: true };
  }

  get size(): number {
    return this.live.size;
  }

  private prune(): void {
    const now = this.now();
    for (const [ticket, entry] of this.live) if (entry.expires <= now) this.live.delete(ticket);
  }
}

import type { KilnBridge } from '../../../shared/contract';

/**
 * Web-host downloads are plain navigations, which carry no token: each takes a single-use ticket from the host
 * (`download.ticket`), good for one path, once, within a minute.
 */
export async function ticketedDownloadUrl(bridge: KilnBridge, rel: string): Promise<string> {
  const { url } = await bridge.request('download.ticket', { path: rel });
  return new URL(url, window.location.origin).href;
}

/**
 * A drag's DownloadURL must be set inside dragstart, with no time to ask the host: the ticket is asked for when
 * the row is pressed, and a drag that follows takes it if it arrived (a loopback round trip is far shorter than
 * a drag's first few pixels). Without one, that drag carries no DownloadURL; Download in the menu still works.
 */
export class PressedRowTicket {
  private current: { path: string; url: string | null } | null = null;

  /** Asks for `path`'s ticket; resolves when it arrived (or was refused), for tests. */
  press(bridge: KilnBridge, path: string): Promise<void> {
    const entry: { path: string; url: string | null } = { path, url: null };
    this.current = entry;
    return ticketedDownloadUrl(bridge, path).then(
      (url) => void (entry.url = url),
      // Expected only when the row went away meanwhile; the drag then simply carries no DownloadURL.
      (err: unknown) => console.warn(`Kiln: no download ticket for ${path}:`, err),
    );
  }

  /** The ready URL for `path`, spent by taking it; undefined when the pressed row was another or is not ready. */
  take(path: string): string | undefined {
    const entry = this.current;
    this.current = null;
    return entry?.path === path && entry.url ? entry.url : undefined;
  }
}

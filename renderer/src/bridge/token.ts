import { TOKEN_STORAGE_KEY } from '../../../shared/web-auth';

/**
 * The web host's token, as the page holds it: the `?token=` of the address it was opened with, kept in
 * sessionStorage (this origin, this tab) for reloads, and dropped from the address at once so it stays out of
 * history, bookmarks and copied links. Never a cookie: those go to every server on 127.0.0.1, whatever its port.
 */
export function takeToken(location: Location, storage: Storage = window.sessionStorage): string | null {
  const params = new URLSearchParams(location.search);
  const fromAddress = params.get('token');
  if (fromAddress) storage.setItem(TOKEN_STORAGE_KEY, fromAddress);
  if (params.has('token')) {
    params.delete('token');
    const query = params.toString();
    window.history.replaceState(
      window.history.state,
      '',
      `${location.pathname}${query ? `?${query}` : ''}${location.hash}`,
    );
  }
  return storage.getItem(TOKEN_STORAGE_KEY);
}

/** The token for the page's own requests that must carry it (uploads); null outside the web host. */
export function webHostToken(): string | null {
  return typeof sessionStorage === 'undefined' ? null : sessionStorage.getItem(TOKEN_STORAGE_KEY);
}

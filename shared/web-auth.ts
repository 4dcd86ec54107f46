/**
 * How a page (or a test, or a bench client) proves to the web host that it holds the token printed at start-up.
 * The token never rides a cookie: cookies are not separated by port, so every other server on 127.0.0.1 the
 * browser visits would receive it. The page keeps it in sessionStorage (one origin, so one host and port, one tab).
 *
 * - WebSocket: the first frame is `{"auth": "<token>"}`; the host answers `{"auth": "ok"}` and only then serves
 *   (requests, events). A wrong or missing first message is closed with WS_CLOSE_UNAUTHORIZED, none within the
 *   host's grace with WS_CLOSE_AUTH_TIMEOUT.
 * - Uploads (`PUT /upload`): `Authorization: Bearer <token>`.
 * - Downloads (plain navigations, which can carry no header): a single-use ticket asked for over the socket
 *   (`download.ticket`).
 */

/** Where the page keeps the token for reloads; sessionStorage is per origin (host and port) and per tab. */
export const TOKEN_STORAGE_KEY = 'kiln.token';

export type AuthMessage = { auth: string };
export const AUTH_OK = { auth: 'ok' } as const;

/** Close codes in the application range (4000-4999), so the page can say why it was closed. */
export const WS_CLOSE_UNAUTHORIZED = 4401;
export const WS_CLOSE_AUTH_TIMEOUT = 4408;

export function authMessage(token: string): string {
  return JSON.stringify({ auth: token } satisfies AuthMessage);
}

export function bearer(token: string): string {
  return `Bearer ${token}`;
}

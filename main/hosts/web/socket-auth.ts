import type { RawData, WebSocket } from 'ws';
import { WS_CLOSE_AUTH_TIMEOUT, WS_CLOSE_UNAUTHORIZED } from '../../../shared/web-auth';
import { sameSecret } from './gate';

/** How long a fresh socket may take to send its token before it is closed. */
export const AUTH_TIMEOUT_MS = 5000;

/**
 * A socket is served only once its first message is `{"auth": "<token>"}`. Until then it gets nothing (no
 * events, no answers); a first message that is anything else, or none within `timeoutMs`, closes it with a code
 * and reason the page can show. The first message rather than a subprotocol: the token then travels only in the
 * socket's payload, never in an HTTP header that proxies and dev tools show, and a refusal can say why (a refused
 * upgrade reaches a page as a bare error, indistinguishable from a host that is down).
 */
export function awaitToken(ws: WebSocket, token: string, timeoutMs: number, onAuthenticated: () => void): void {
  const timer = setTimeout(
    () => ws.close(WS_CLOSE_AUTH_TIMEOUT, `Kiln: no token within ${Math.round(timeoutMs / 1000)} s`),
    timeoutMs,
  );
  ws.once('close', () => clearTimeout(timer));
  ws.once('message', (data) => {
    clearTimeout(timer);
    const offered = offeredToken(data);
    // Later messages reach the caller's listener only if it is added here, before ws emits the next one.
    if (offered !== null && sameSecret(offered, token)) return onAuthenticated();
    ws.close(WS_CLOSE_UNAUTHORIZED, 'Kiln: this connection needs the token printed when the web host started');
  });
}

function offeredToken(data: RawData): string | null {
  try {
    const message = JSON.parse(String(data)) as unknown;
    const auth = (message as { auth?: unknown } | null)?.auth;
    return typeof auth === 'string' ? auth : null;
  } catch {
    return null;
  }
}

import { ServerConnection } from '@jupyterlab/services';
import WebSocket from 'ws';
import { directKernelSocketClass } from './direct-socket';

/**
 * Kernel WebSockets that speak the v1 kernel protocol when the server offers it (jupyter_server ≥ 1.21):
 * the server then relays the kernel's frames as they are, where with the JSON protocol it unpacks, checks,
 * re-encodes and signs every message, which is most of a short execution's round trip.
 * `ws` (unlike a browser) refuses a handshake in which the server picks no subprotocol, as older servers
 * do; @jupyterlab/services then reconnects offering none, and this remembers that server so its later
 * sockets ask for the JSON protocol straight away.
 */
class KernelWebSocket extends WebSocket {
  /** Origins whose server picked no subprotocol when offered the v1 protocol. */
  static readonly jsonOnly = new Set<string>();

  constructor(url: string | URL, protocols?: string | string[]) {
    const origin = new URL(url).origin;
    super(url, KernelWebSocket.jsonOnly.has(origin) ? [] : protocols);
    this.once('error', (err) => {
      if (err.message === 'Server sent no subprotocol') KernelWebSocket.jsonOnly.add(origin);
    });
  }
}

/**
 * How @jupyterlab/services reaches a server. `runtimeDir`, the embedded server's private runtime folder where
 * its kernels' connection files are, lets kernel connections speak ZMQ to those kernels (see direct-socket.ts).
 */
export function makeServerSettings(baseUrl: string, token: string, runtimeDir?: string): ServerConnection.ISettings {
  const base = baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`;
  return ServerConnection.makeSettings({
    baseUrl: base,
    wsUrl: base.replace(/^http/, 'ws'),
    token,
    appendToken: true,
    WebSocket: runtimeDir
      ? directKernelSocketClass(runtimeDir, (url, protocols) => new KernelWebSocket(url, protocols))
      : (KernelWebSocket as unknown as typeof globalThis.WebSocket),
    fetch: globalThis.fetch,
    Request: globalThis.Request,
    Headers: globalThis.Headers,
  });
}

/** Whether the server answers /api/status: 'answered', 'timed-out', or 'failed' (refused, reset, an error status). */
export async function askStatus(
  baseUrl: string,
  token: string,
  timeoutMs: number,
): Promise<'answered' | 'timed-out' | 'failed'> {
  try {
    const res = await fetch(`${baseUrl}api/status`, {
      headers: { Authorization: `token ${token}` },
      signal: AbortSignal.timeout(timeoutMs),
    });
    // expected: only the status matters; the body is drained so the connection is freed
    await res.arrayBuffer().catch(() => undefined);
    return res.ok ? 'answered' : 'failed';
  } catch (err) {
    return err instanceof Error && err.name === 'TimeoutError' ? 'timed-out' : 'failed';
  }
}

export async function answersStatus(baseUrl: string, token: string): Promise<boolean> {
  return (await askStatus(baseUrl, token, 3000)) === 'answered';
}

/** What the toolbar and the cells say while a remote server does not answer (JupyterLab: "Server Connection Error"). */
export function notAnsweringMessage(baseUrl: string): string {
  return `Jupyter server at ${baseUrl} is not answering; retrying`;
}

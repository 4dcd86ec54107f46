import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { KilnError } from '../../../shared/errors';
import { connectWebSocketBridge } from './websocket';

// The bridge runs in a page; under Node it gets the ws client as its WebSocket and a bare event target as window.
const page = globalThis as unknown as { WebSocket?: unknown; window?: EventTarget };
page.WebSocket ??= WebSocket;
page.window ??= new EventTarget();

let server: WebSocketServer | undefined;
afterEach(() => server?.close());

it('a dropped connection fails the pending and every later request with E_DISCONNECTED, and tells the page', async () => {
  server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise((resolve) => server!.once('listening', resolve));
  // The host goes away while a request is in flight.
  server.on('connection', (socket) => socket.on('message', () => socket.terminate()));
  const { port } = server.address() as AddressInfo;
  const location = { protocol: 'http:', host: `127.0.0.1:${port}`, search: '', pathname: '/', hash: '' } as Location;
  const bridge = await connectWebSocketBridge(location);
  const told = new Promise((resolve) => page.window!.addEventListener('kiln-disconnected', resolve, { once: true }));

  const pending = await bridge.request('prefs.get', {}).catch((e: unknown) => e);
  expect(pending).toBeInstanceOf(KilnError);
  expect(pending).toMatchObject({
    code: 'E_DISCONNECTED',
    message: 'Lost the connection to Kiln; reload to reconnect',
  });
  await told;
  await expect(bridge.request('prefs.get', {})).rejects.toMatchObject({ code: 'E_DISCONNECTED' });
});

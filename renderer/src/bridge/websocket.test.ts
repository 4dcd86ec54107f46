import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { KilnError } from '../../../shared/errors';
import { AUTH_OK, TOKEN_STORAGE_KEY, WS_CLOSE_UNAUTHORIZED } from '../../../shared/web-auth';
import { connectWebSocketBridge } from './websocket';

// The bridge runs in a page; under Node it gets the ws client as its WebSocket and a bare event target as window.
const page = globalThis as unknown as { WebSocket?: unknown; window?: EventTarget };
page.WebSocket ??= WebSocket;
page.window ??= new EventTarget();

/** sessionStorage as the page has it, holding the token a first load with `?token=` kept. */
function storageWith(token: string | null): Storage {
  const items = new Map<string, string>(token === null ? [] : [[TOKEN_STORAGE_KEY, token]]);
  return {
    getItem: (key: string) => items.get(key) ?? null,
    setItem: (key: string, value: string) => void items.set(key, value),
  } as Storage;
}

let server: WebSocketServer | undefined;
afterEach(() => server?.close());

async function listen(onFirstMessage: (socket: import('ws').WebSocket, text: string) => void): Promise<Location> {
  server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise((resolve) => server!.once('listening', resolve));
  server.on('connection', (socket) => socket.once('message', (data) => onFirstMessage(socket, String(data))));
  const { port } = server.address() as AddressInfo;
  return { protocol: 'http:', host: `127.0.0.1:${port}`, search: '', pathname: '/', hash: '' } as Location;
}

it('sends the kept token as its first message and is ready only when the host accepts it', async () => {
  const firsts: string[] = [];
  const location = await listen((socket, text) => {
    firsts.push(text);
    socket.send(JSON.stringify(AUTH_OK));
    socket.on('message', (data) => {
      const { id } = JSON.parse(String(data)) as { id: number };
      socket.send(JSON.stringify({ id, ok: true, value: 'answered' }));
    });
  });
  const bridge = await connectWebSocketBridge(location, storageWith('the-token'));
  expect(firsts).toEqual([JSON.stringify({ auth: 'the-token' })]);
  expect(await bridge.request('prefs.get', {})).toBe('answered');
});

it('a refused token fails the connection with a message that says so', async () => {
  const location = await listen((socket) => socket.close(WS_CLOSE_UNAUTHORIZED, 'no'));
  await expect(connectWebSocketBridge(location, storageWith('stale'))).rejects.toMatchObject({
    code: 'E_DISCONNECTED',
    message: 'the web host refused this token; open the address it printed when it started',
  });
});

it('without a token in the address or the tab, it does not connect and says what address to open', async () => {
  const location = await listen(() => expect.fail('no socket should open'));
  await expect(connectWebSocketBridge(location, storageWith(null))).rejects.toThrow(/token printed when/);
});

it('a dropped connection fails the pending and every later request with E_DISCONNECTED, and tells the page', async () => {
  // The host goes away while a request is in flight.
  const location = await listen((socket) => {
    socket.send(JSON.stringify(AUTH_OK));
    socket.on('message', () => socket.terminate());
  });
  const bridge = await connectWebSocketBridge(location, storageWith('the-token'));
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

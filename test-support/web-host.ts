import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { MemoryStore } from '../main/prefs';
import { createServices, type Services } from '../main/services';
import { makeTempTree } from './temp-workspace';
import { startWebHost, type WebHost, type WebHostOptions } from '../main/hosts/web/server';
import { AUTH_OK, authMessage, bearer } from '../shared/web-auth';

/** A web host on a real temp workspace with a stub renderer page, for the host's own tests. */
export async function startTestHost(
  files: Record<string, string> = { 'hello.txt': 'hello\n', 'src/': '' },
  hostOptions: Pick<WebHostOptions, 'authTimeoutMs' | 'ticketTtlMs'> = {},
): Promise<{
  host: WebHost;
  root: string;
  services: Services;
  staticDir: string;
  close: () => Promise<void>;
}> {
  const { root, cleanup } = await makeTempTree(files);
  const staticDir = await mkdtemp(path.join(os.tmpdir(), 'kiln-static-'));
  await writeFile(path.join(staticDir, 'index.html'), '<!doctype html><title>Kiln</title>');
  const services = await createServices({
    root,
    dataDir: staticDir,
    prefsStore: new MemoryStore(),
    trash: async () => false,
  });
  // Start-up does not wait for the watcher; the tests assert on its events.
  await services.watching();
  const host = await startWebHost({ services, staticDir, ...hostOptions });
  return {
    host,
    root,
    services,
    staticDir,
    async close() {
      await host.close();
      await services.dispose();
      await cleanup();
      await rm(staticDir, { recursive: true, force: true });
    },
  };
}

export type Reply = { id: number; ok: boolean; value?: unknown; error?: { code: string; message: string } };

export interface ContractClient {
  call: (channel: unknown, args: unknown) => Promise<Reply>;
  events: unknown[];
  close: () => void;
}

/** The `Authorization` header an upload carries, as the page sends it. */
export const authorization = (token: string) => ({ authorization: bearer(token) });

/**
 * A contract client over a real WebSocket, authenticated as the page is: its first message is the token (the
 * host's own unless `token` says otherwise), and it is ready once the host accepts it. A refused upgrade rejects
 * with its HTTP status, a refused token with the host's close code and reason. `headers` adds Origin as a
 * browser would send it.
 */
export async function connectClient(
  host: Pick<WebHost, 'port' | 'token'>,
  options: { token?: string; query?: string; headers?: Record<string, string> } = {},
): Promise<ContractClient> {
  const socket = new WebSocket(`ws://127.0.0.1:${host.port}/ws${options.query ?? ''}`, { headers: options.headers });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.once('close', (code, reason) => reject(new Error(`closed ${code}: ${reason.toString()}`)));
    socket.once('open', () => socket.send(authMessage(options.token ?? host.token)));
    socket.once('message', (data) => {
      if (String(data) === JSON.stringify(AUTH_OK)) resolve();
      else reject(new Error(`expected the host's acceptance first, got ${String(data).slice(0, 80)}`));
    });
  });
  let nextId = 1;
  const waiting = new Map<number, (reply: Reply) => void>();
  const events: unknown[] = [];
  socket.on('message', (data) => {
    const frame = JSON.parse(String(data));
    if ('event' in frame) events.push(frame);
    else waiting.get(frame.id)?.(frame);
  });
  return {
    call: (channel, args) =>
      new Promise((resolve) => {
        const id = nextId++;
        waiting.set(id, resolve);
        socket.send(JSON.stringify({ id, channel, args }));
      }),
    events,
    close: () => socket.close(),
  };
}

/**
 * Sends raw bytes to the host and collects what comes back until the host closes the connection. A host
 * that neither closes nor errors within `timeoutMs` fails the call: hanging on bad input is a bug, not "closed".
 */
export function rawExchange(port: number, bytes: string | Buffer, timeoutMs = 10_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(
        new Error(
          `the host kept the connection open for ${timeoutMs} ms without closing it; it sent: ${received.slice(0, 200)}`,
        ),
      );
    }, timeoutMs);
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(received);
    };
    socket.on('data', (chunk) => (received += chunk.toString('latin1')));
    socket.on('error', done);
    socket.on('close', done);
    socket.write(bytes);
  });
}

/** An upgrade request as a browser sends it; `overrides` replaces or (with undefined) drops headers. */
export function upgradeRequest(
  port: number,
  target: string,
  overrides: Record<string, string | undefined> = {},
): string {
  const headers: Record<string, string | undefined> = {
    Host: `127.0.0.1:${port}`,
    Upgrade: 'websocket',
    Connection: 'Upgrade',
    'Sec-WebSocket-Key': randomBytes(16).toString('base64'),
    'Sec-WebSocket-Version': '13',
    Origin: `http://127.0.0.1:${port}`,
    ...overrides,
  };
  const lines = Object.entries(headers)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}: ${v}`);
  return `GET ${target} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`;
}

/**
 * An open WebSocket at the byte level, to write frames a well-behaved client never would; authenticated (its
 * first frame the token, the host's acceptance read) unless `token` is null.
 */
export function rawSocket(port: number, token: string | null): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('error', reject);
    socket.write(upgradeRequest(port, '/ws'));
    let received = '';
    const read = (chunk: Buffer) => {
      received += chunk.toString('latin1');
      if (!received.startsWith('HTTP/1.1 101')) {
        socket.off('data', read);
        return reject(new Error(`no upgrade: ${received.slice(0, 80)}`));
      }
      if (!received.includes('\r\n\r\n')) return;
      if (token === null) {
        socket.off('data', read);
        return resolve(socket);
      }
      if (!received.includes(JSON.stringify(AUTH_OK))) return;
      socket.off('data', read);
      resolve(socket);
    };
    socket.on('data', read);
    socket.once('connect', () => {
      if (token !== null) socket.write(frame({ opcode: 0x1, payload: Buffer.from(authMessage(token)) }));
    });
  });
}

/** One WebSocket frame; client frames are masked unless `masked` is false. */
export function frame(options: {
  opcode: number;
  payload?: Buffer;
  fin?: boolean;
  rsv?: number;
  masked?: boolean;
  declaredLength?: number;
}): Buffer {
  const payload = options.payload ?? Buffer.alloc(0);
  const length = options.declaredLength ?? payload.length;
  const masked = options.masked ?? true;
  const head = [((options.fin ?? true) ? 0x80 : 0) | ((options.rsv ?? 0) << 4) | options.opcode];
  const maskBit = masked ? 0x80 : 0;
  let ext = Buffer.alloc(0);
  if (length < 126) head.push(maskBit | length);
  else if (length < 65536) {
    head.push(maskBit | 126);
    ext = Buffer.alloc(2);
    ext.writeUInt16BE(length);
  } else {
    head.push(maskBit | 127);
    ext = Buffer.alloc(8);
    ext.writeBigUInt64BE(BigInt(length));
  }
  // A zero mask leaves the payload bytes as they are.
  return Buffer.concat([Buffer.from(head), ext, masked ? Buffer.alloc(4) : Buffer.alloc(0), payload]);
}

import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import { contentSecurityPolicy } from '../../../shared/csp';
import { dispatch } from '../../router';
import { rendererFile } from '../renderer-file';
import type { Services } from '../../services';

export interface WebHostOptions {
  services: Services;
  /** The built renderer (index.html and assets). */
  staticDir: string;
  port?: number;
  host?: string;
  /** Binding beyond loopback exposes the workspace to the network; it must be asked for by name. */
  allowNonLoopback?: boolean;
  token?: string;
}

export interface WebHost {
  url: string;
  port: number;
  token: string;
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);
const TOKEN_COOKIE = 'kiln_token';
const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ttf': 'font/ttf',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
};

/** Serves the renderer and the contract over one token-guarded WebSocket, on loopback by default. */
export async function startWebHost(options: WebHostOptions): Promise<WebHost> {
  const host = options.host ?? '127.0.0.1';
  if (!LOOPBACK.has(host) && !options.allowNonLoopback) {
    throw new Error(`Refusing to bind ${host}: the web host serves your files. Pass --allow-remote to bind beyond loopback.`);
  }
  const token = options.token ?? randomBytes(24).toString('base64url');
  const staticRoot = path.resolve(options.staticDir);
  const sockets = new Set<WebSocket>();

  const server = createServer((req, res) => {
    serveHttp(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });

  async function serveHttp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://host');
    if (!isAuthorized(req, url, token)) {
      res.writeHead(401, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('Kiln: this address needs the token printed when the web host started.\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405).end();
      return;
    }
    const file = rendererFile(staticRoot, url.pathname);
    const info = file ? await stat(file).catch(() => null) : null;
    if (!file || !info?.isFile()) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found\n');
      return;
    }
    const headers: Record<string, string> = {
      'content-type': MIME[path.extname(file)] ?? 'application/octet-stream',
      'content-length': String(info.size),
      'x-content-type-options': 'nosniff',
      'cache-control': 'no-store',
    };
    if (file.endsWith('.html')) {
      headers['content-security-policy'] = contentSecurityPolicy();
      // A token in the URL is remembered as a cookie so assets and reloads without it still work.
      headers['set-cookie'] = `${TOKEN_COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/`;
      headers['referrer-policy'] = 'no-referrer';
    }
    res.writeHead(200, headers);
    if (req.method === 'HEAD') res.end();
    else createReadStream(file).pipe(res);
  }

  const wss = new WebSocketServer({ noServer: true, maxPayload: 512 * 1024 * 1024 });
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://host');
    if (url.pathname !== '/ws' || !isAuthorized(req, url, token) || !isSameOrigin(req)) {
      socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws));
  });

  const unsubscribe = options.services.hub.subscribe((event) => {
    const frame = JSON.stringify({ event: event.channel, payload: event.payload });
    for (const ws of sockets) if (ws.readyState === ws.OPEN) ws.send(frame);
  });

  wss.on('connection', (ws) => {
    sockets.add(ws);
    ws.on('close', () => sockets.delete(ws));
    ws.on('message', async (data) => {
      let id: unknown = null;
      let channel: unknown;
      let args: unknown;
      try {
        const message = JSON.parse(String(data)) as { id?: unknown; channel?: unknown; args?: unknown };
        ({ id, channel, args } = message);
      } catch {
        channel = undefined;
      }
      const envelope = await dispatch(options.services.handlers, channel, args);
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ id, ...envelope }));
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}/?token=${token}`,
    port,
    token,
    async close() {
      unsubscribe();
      for (const ws of sockets) ws.terminate();
      wss.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
    },
  };
}

function isAuthorized(req: IncomingMessage, url: URL, token: string): boolean {
  const offered = url.searchParams.get('token') ?? readCookie(req.headers.cookie, TOKEN_COOKIE);
  if (!offered) return false;
  const a = Buffer.from(offered);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Browsers always send Origin on WebSocket upgrades; another site's page must not reach the contract. */
function isSameOrigin(req: IncomingMessage): boolean {
  const origin = req.headers.origin;
  if (!origin) return true;
  try {
    return new URL(origin).host === req.headers.host;
  } catch {
    return false;
  }
}

function readCookie(header: string | undefined, name: string): string | null {
  for (const part of header?.split(';') ?? []) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=');
  }
  return null;
}

import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { contentSecurityPolicy } from '../../../shared/csp';
import { UPLOAD_ENDPOINT } from '../../../shared/contract';
import { dispatch } from '../../router';
import { receiveUpload } from '../../upload';
import { rendererFile } from '../renderer-file';
import { DOWNLOAD_ROUTE, DownloadService, downloadStatus } from '../../download';
import { PathGuard } from '../../workspace';
import type { Services } from '../../services';
import { Outbox } from './outbox';

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
/**
 * The largest frame the contract needs is `workspace.write` of the largest file Kiln opens: reads stop at
 * 64 MiB (main/workspace MAX_READ_BYTES), plus room for JSON escaping and the envelope. ws checks a frame's
 * declared length before buffering it, so anything larger is refused (close 1009) without being held.
 */
export const MAX_FRAME_BYTES = (64 + 16) * 1024 * 1024;
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
    throw new Error(
      `Refusing to bind ${host}: the web host serves your files. Pass --allow-remote to bind beyond loopback.`,
    );
  }
  const token = options.token ?? randomBytes(24).toString('base64url');
  const staticRoot = path.resolve(options.staticDir);
  const sockets = new Set<WebSocket>();
  const downloads = new DownloadService(
    new PathGuard(options.services.workspace.root),
    options.services.workspace.name,
  );
  // Known once listening: the Host names this host answers to and the cookie named for its port.
  let gate: RequestGate = { hosts: new Set(), cookie: '' };
  const refusals = new Set<string>();
  /** Bad input is answered, never thrown; each kind is logged once so a flood cannot fill the log. */
  const logRefusal = (kind: string, detail: string): void => {
    if (refusals.has(kind)) return;
    refusals.add(kind);
    console.warn(`Kiln web host: refused ${kind} (${detail}); further ones are refused silently.`);
  };

  const server = createServer((req, res) => {
    // Bodies have no time limit (below), so a body left unread once the answer is out closes its connection: only
    // an upload with the token, which reads its body as it writes, can keep one open.
    res.on('finish', () => {
      if (!req.complete) req.socket.destroy();
    });
    serveHttp(req, res).catch((err: unknown) => {
      logRefusal('a request that failed', err instanceof Error ? err.message : String(err));
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  // An upload's body may take longer than Node's default 5 minutes (a large file through an SSH tunnel); headers
  // are still bounded by headersTimeout.
  server.requestTimeout = 0;
  server.on('clientError', (err, socket) => {
    // A client that went away mid-request (a cancelled upload, a closed tab) is no refusal: nothing to answer.
    if (isClientGone(err)) return void socket.destroy();
    logRefusal('a malformed HTTP request', (err as NodeJS.ErrnoException).code ?? err.message);
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    else socket.destroy();
  });

  async function serveHttp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const verdict = checkRequest(req, gate, token);
    if (verdict.status !== 200) {
      if (verdict.status !== 401)
        logRefusal(verdict.why, `${req.headers.host ?? 'no Host'} ${req.headers.origin ?? ''}`.trim());
      res.writeHead(verdict.status, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(
        verdict.status === 401
          ? 'Kiln: this address needs the token printed when the web host started.\n'
          : `Kiln: ${verdict.why}.\n`,
      );
      return;
    }
    const url = verdict.url;
    if (url.pathname === UPLOAD_ENDPOINT) return receiveUpload(req, res, url, options.services.workspace);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405).end();
      return;
    }
    if (url.pathname === DOWNLOAD_ROUTE) return serveDownload(req, res, url);
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
      // A token in the URL is remembered as a cookie so assets, reloads and the WebSocket work without it (the
      // page then drops it from its address). Named per port: two Kiln hosts in one browser keep their own.
      headers['set-cookie'] = `${gate.cookie}=${token}; HttpOnly; SameSite=Strict; Path=/`;
      headers['referrer-policy'] = 'no-referrer';
    }
    res.writeHead(200, headers);
    if (req.method === 'HEAD') res.end();
    // A file that vanished after its stat ends this response, not the host.
    else
      createReadStream(file)
        .on('error', () => res.destroy())
        .pipe(res);
  }

  /** Workspace files leave only with the cookie, never a token in a URL that could be passed on. */
  async function serveDownload(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const cookie = readCookie(req.headers.cookie, gate.cookie);
    const refuse = (status: number, message: string) =>
      void res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' }).end(`Kiln: ${message}\n`);
    if (!cookie || !sameSecret(cookie, token)) return refuse(401, "a download needs the web host's token cookie.");
    const rel = url.searchParams.get('path');
    if (rel === null) return refuse(400, 'a download needs ?path=.');
    try {
      await downloads.serve(rel, res, { headOnly: req.method === 'HEAD' });
    } catch (err) {
      const { status, message } = downloadStatus(err);
      if (status === 403) logRefusal('a download outside the workspace', rel);
      if (res.headersSent) res.destroy();
      else refuse(status, message);
    }
  }

  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  wss.on('error', (err) => logRefusal('a WebSocket server error', err.message));
  server.on('upgrade', (req, socket, head) => {
    socket.on('error', () => socket.destroy());
    try {
      const verdict = checkRequest(req, gate, token);
      if (verdict.status !== 200 || verdict.url.pathname !== '/ws') {
        const status = verdict.status === 200 ? 404 : verdict.status;
        if (status !== 401)
          logRefusal(verdict.status === 200 ? 'an upgrade to an unknown path' : verdict.why, req.url ?? '');
        socket.end(`HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\nConnection: close\r\n\r\n`);
        return;
      }
      wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws));
    } catch (err) {
      logRefusal('an upgrade that failed', err instanceof Error ? err.message : String(err));
      socket.destroy();
    }
  });

  const outbox = new Outbox();
  const forwarding = options.services.hub.onEvent((event) => {
    const frame = JSON.stringify({ event: event.channel, payload: event.payload });
    for (const ws of sockets) outbox.post(ws, frame);
  });

  wss.on('connection', (ws) => {
    sockets.add(ws);
    // A malformed frame (bad UTF-8, RSV bits, unmasked, bad opcode or close code, too large) closes this
    // socket only; without a listener ws would rethrow it and take the host down.
    ws.on('error', (err) => logRefusal('a malformed WebSocket frame', err.message));
    ws.on('close', () => sockets.delete(ws));
    ws.on('message', (data) => {
      void answer(ws, data).catch((err: unknown) =>
        logRefusal('a message that failed', err instanceof Error ? err.message : String(err)),
      );
    });
  });

  async function answer(ws: WebSocket, data: RawData): Promise<void> {
    let id: unknown = null;
    let channel: unknown;
    let args: unknown;
    try {
      const message = JSON.parse(String(data)) as { id?: unknown; channel?: unknown; args?: unknown };
      ({ id, channel, args } = message ?? {});
    } catch {
      channel = undefined;
    }
    const envelope = await dispatch(options.services.handlers, channel, args);
    outbox.post(ws, JSON.stringify({ id, ...envelope }));
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  gate = { hosts: allowedHosts(shownHost, port), cookie: `kiln_token_${port}` };
  return {
    url: `http://${shownHost}:${port}/?token=${token}`,
    port,
    token,
    async close() {
      void forwarding.dispose();
      outbox.dispose();
      for (const ws of sockets) ws.terminate();
      wss.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
    },
  };
}

interface RequestGate {
  /** `host:port` values of the Host header this host answers to (DNS rebinding gets 403). */
  hosts: Set<string>;
  /** The token cookie's name, per port. */
  cookie: string;
}

type Verdict = { status: 200; url: URL } | { status: 400 | 401 | 403; why: string };

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
};

function allowedHosts(shownHost: string, port: number): Set<string> {
  return new Set(['127.0.0.1', 'localhost', '[::1]', shownHost].map((name) => `${name.toLowerCase()}:${port}`));
}

/**
 * Every request passes here first, upgrade or not: a target that does not parse is 400, a Host that is not
 * this host's is 403 (DNS rebinding), an Origin that is not this host's page (scheme, host and port) is 403,
 * and without the token (query or this port's cookie) it is 401.
 */
function checkRequest(req: IncomingMessage, gate: RequestGate, token: string): Verdict {
  const host = req.headers.host?.toLowerCase();
  if (!host || !gate.hosts.has(host)) return { status: 403, why: 'a request for another Host' };
  let url: URL;
  try {
    url = new URL(req.url ?? '/', `http://${host}`);
  } catch {
    return { status: 400, why: 'a request target that does not parse' };
  }
  const origin = req.headers.origin;
  // Browsers always send Origin on WebSocket upgrades; a plain page load sends none, or its own.
  if (origin !== undefined && !isOwnOrigin(origin, gate))
    return { status: 403, why: 'a request from a foreign Origin' };
  const offered = url.searchParams.get('token') ?? readCookie(req.headers.cookie, gate.cookie);
  if (!offered || !sameSecret(offered, token)) return { status: 401, why: 'a request without the token' };
  return { status: 200, url };
}

/** The page's own origin: http, one of this host's names, this port. */
function isOwnOrigin(origin: string, gate: RequestGate): boolean {
  try {
    const parsed = new URL(origin);
    return parsed.protocol === 'http:' && parsed.origin === origin && gate.hosts.has(parsed.host.toLowerCase());
  } catch {
    return false;
  }
}

/**
 * The connection ended under a request rather than carrying a bad one: reset or closed by the client
 * (HPE_INVALID_EOF_STATE is Node's parser meeting the end of the stream inside a body).
 */
export function isClientGone(err: Error): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ECONNRESET' || code === 'EPIPE' || code === 'HPE_INVALID_EOF_STATE';
}

function sameSecret(offered: string, token: string): boolean {
  const a = Buffer.from(offered);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

function readCookie(header: string | undefined, name: string): string | null {
  for (const part of header?.split(';') ?? []) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=');
  }
  return null;
}

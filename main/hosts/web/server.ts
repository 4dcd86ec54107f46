import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { frameDenyingHeaders } from '../../../shared/csp';
import { UPLOAD_ENDPOINT } from '../../../shared/contract';
import { downloadPath } from '../../../shared/download';
import { AUTH_OK } from '../../../shared/web-auth';
import { dispatch, type Handlers } from '../../router';
import { receiveUpload } from '../../upload';
import { rendererFile } from '../renderer-file';
import { DOWNLOAD_ROUTE, DownloadService, downloadStatus } from '../../download';
import { PathGuard } from '../../workspace';
import type { Services } from '../../services';
import { Outbox } from './outbox';
import { allowedHosts, checkRequest, hasBearerToken, sameSecret, STATUS_TEXT, type RequestGate } from './gate';
import { AUTH_TIMEOUT_MS, awaitToken } from './socket-auth';
import { DownloadTickets, TICKET_TTL_MS } from './tickets';
import { createLogger } from '../../log';

// A path the bundle does not have is answered 404, as any static server does.
const notInBundle = createLogger('host.web').caught('a request named no file of the app bundle; answered 404', null);

export interface WebHostOptions {
  services: Services;
  /** The built renderer (index.html and assets). */
  staticDir: string;
  port?: number;
  host?: string;
  /** Binding beyond loopback exposes the workspace to the network; it must be asked for by name. */
  allowNonLoopback?: boolean;
  token?: string;
  /** How long a socket may take to send its token (tests shorten it). */
  authTimeoutMs?: number;
  /** How long a download ticket stays good (tests shorten it). */
  ticketTtlMs?: number;
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
/** What a socket may send before its token is accepted: the auth message is well under 1 KiB. */
export const MAX_UNAUTHENTICATED_BYTES = 64 * 1024;
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

/** Every response's framing headers, as raw header lines for the answers written straight to a socket. */
const FRAME_HEADER_LINES = Object.entries(frameDenyingHeaders())
  .map(([name, value]) => `${name}: ${value}\r\n`)
  .join('');

/**
 * Serves the renderer and the contract over one token-guarded WebSocket, on loopback by default. The app bundle
 * (index.html and its assets) is served without the token: it holds nothing from or about the workspace. All
 * else needs it: the socket's first message, an upload's Authorization header, a download's single-use ticket.
 */
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
  const tickets = new DownloadTickets(options.ticketTtlMs ?? TICKET_TTL_MS);
  const handlers: Handlers = {
    ...options.services.handlers,
    // The path is checked where it is served (the guard, at the time of the download), as without tickets.
    'download.ticket': ({ path: rel }) => ({ url: downloadPath(rel, tickets.issue(rel)) }),
  };
  // Known once listening: the Host names this host answers to.
  let gate: RequestGate = { hosts: new Set() };
  const refusals = new Set<string>();
  /** Bad input is answered, never thrown; each kind is logged once so a flood cannot fill the log. */
  const logRefusal = (kind: string, detail: string): void => {
    if (refusals.has(kind)) return;
    refusals.add(kind);
    console.warn(`Kiln web host: refused ${kind} (${detail}); further ones are refused silently.`);
  };

  const server = createServer((req, res) => {
    // On every answer, refusals and downloads included: no page may frame Kiln.
    for (const [name, value] of Object.entries(frameDenyingHeaders())) res.setHeader(name, value);
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
    if (socket.writable) socket.end(`HTTP/1.1 400 Bad Request\r\n${FRAME_HEADER_LINES}Connection: close\r\n\r\n`);
    else socket.destroy();
  });

  async function serveHttp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const refuse = (status: number, message: string) =>
      void res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' }).end(`Kiln: ${message}\n`);
    const verdict = checkRequest(req, gate);
    if (verdict.status !== 200) {
      logRefusal(verdict.why, `${req.headers.host ?? 'no Host'} ${req.headers.origin ?? ''}`.trim());
      return refuse(verdict.status, `${verdict.why}.`);
    }
    const url = verdict.url;
    // A stale address (an earlier run's token) is told so at once rather than loading a page that cannot connect.
    const offered = url.searchParams.get('token');
    if (offered !== null && !sameSecret(offered, token))
      return refuse(401, 'this address carries a wrong token; use the one printed when the web host started.');
    if (url.pathname === UPLOAD_ENDPOINT) {
      if (!hasBearerToken(req, token)) return refuse(401, 'an upload needs the token in its Authorization header.');
      return receiveUpload(req, res, url, options.services.workspace);
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405).end();
      return;
    }
    if (url.pathname === DOWNLOAD_ROUTE) return serveDownload(req, res, url);
    // From here on, the app bundle only: no token needed, nothing from the workspace.
    const file = rendererFile(staticRoot, url.pathname);
    const info = file ? await stat(file).catch(notInBundle) : null;
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
    // The page's address may carry the token until it drops it: no Referer takes it anywhere.
    if (file.endsWith('.html')) headers['referrer-policy'] = 'no-referrer';
    res.writeHead(200, headers);
    if (req.method === 'HEAD') res.end();
    // A file that vanished after its stat ends this response, not the host.
    else
      createReadStream(file)
        .on('error', () => res.destroy())
        .pipe(res);
  }

  /** Workspace files leave only with a live ticket for that path, never the token in a URL that is passed on. */
  async function serveDownload(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const refuse = (status: number, message: string) =>
      void res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' }).end(`Kiln: ${message}\n`);
    const rel = url.searchParams.get('path');
    if (rel === null) return refuse(400, 'a download needs ?path=.');
    const ticket = tickets.redeem(url.searchParams.get('ticket'), rel);
    if (!ticket.ok) return refuse(401, `${ticket.why}.`);
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
      const verdict = checkRequest(req, gate);
      if (verdict.status !== 200 || verdict.url.pathname !== '/ws') {
        const status = verdict.status === 200 ? 404 : verdict.status;
        // The path only: a query might carry a token, which has no place in the log.
        logRefusal(
          verdict.status === 200 ? 'an upgrade to an unknown path' : verdict.why,
          (req.url ?? '').split('?')[0]!,
        );
        socket.end(`HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\n${FRAME_HEADER_LINES}Connection: close\r\n\r\n`);
        return;
      }
      // Until its token is in, a socket may send no more than an auth message needs (the frame cap is for later).
      // ws hands `head` back to the socket as data, so it is counted there.
      let unproven = 0;
      const capUnproven = (chunk: Buffer) => {
        unproven += chunk.length;
        if (unproven > MAX_UNAUTHENTICATED_BYTES) {
          logRefusal('a socket that sent too much before its token', `${unproven} bytes`);
          socket.destroy();
        }
      };
      wss.handleUpgrade(req, socket, head, (ws) => {
        // After ws's own listener: a 'data' listener before it would set the socket flowing with no one to read.
        socket.on('data', capUnproven);
        ws.once('kiln-authenticated', () => socket.off('data', capUnproven));
        wss.emit('connection', ws);
      });
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
    // A malformed frame (bad UTF-8, RSV bits, unmasked, bad opcode or close code, too large) closes this
    // socket only; without a listener ws would rethrow it and take the host down.
    ws.on('error', (err) => logRefusal('a malformed WebSocket frame', err.message));
    ws.on('close', () => sockets.delete(ws));
    // Nothing (events included) reaches a socket before its first message proves it holds the token.
    awaitToken(ws, token, options.authTimeoutMs ?? AUTH_TIMEOUT_MS, () => {
      ws.emit('kiln-authenticated');
      sockets.add(ws);
      outbox.post(ws, JSON.stringify(AUTH_OK));
      ws.on('message', (data) => {
        outbox.holdForRequest();
        void answer(ws, data).catch((err: unknown) =>
          logRefusal('a message that failed', err instanceof Error ? err.message : String(err)),
        );
      });
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
    const envelope = await dispatch(handlers, channel, args);
    outbox.post(ws, JSON.stringify({ id, ...envelope }));
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  gate = { hosts: allowedHosts(shownHost, port) };
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

/**
 * The connection ended under a request rather than carrying a bad one: reset or closed by the client
 * (HPE_INVALID_EOF_STATE is Node's parser meeting the end of the stream inside a body).
 */
export function isClientGone(err: Error): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ECONNRESET' || code === 'EPIPE' || code === 'HPE_INVALID_EOF_STATE';
}

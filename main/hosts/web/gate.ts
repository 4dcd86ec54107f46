import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export interface RequestGate {
  /** `host:port` values of the Host header this host answers to (DNS rebinding gets 403). */
  hosts: Set<string>;
}

export type Verdict = { status: 200; url: URL } | { status: 400 | 403; why: string };

export const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
};

export function allowedHosts(shownHost: string, port: number): Set<string> {
  return new Set(['127.0.0.1', 'localhost', '[::1]', shownHost].map((name) => `${name.toLowerCase()}:${port}`));
}

/**
 * Every request passes here first, upgrade or not: a target that does not parse is 400, a Host that is not
 * this host's is 403 (DNS rebinding), an Origin that is not this host's page (scheme, host and port) is 403.
 * The token is each route's own check (server.ts): the page's bundle needs none, the socket's first message,
 * an upload's Authorization header and a download's ticket carry it.
 */
export function checkRequest(req: IncomingMessage, gate: RequestGate): Verdict {
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

/** `Authorization: Bearer <token>` carrying this host's token. */
export function hasBearerToken(req: IncomingMessage, token: string): boolean {
  const match = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '');
  return match !== null && sameSecret(match[1]!, token);
}

export function sameSecret(offered: string, token: string): boolean {
  const a = Buffer.from(offered);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JupyterServerManager, type JupyterServerEvent } from './jupyter-server';
import { until } from '../../test-support/until';

/**
 * The remote liveness check's lifecycle, against a real HTTP server that answers /api/status as Jupyter does
 * (whether the check notices a real Jupyter server's death is main/notebook/remote-outage.test.ts).
 */

/**
 * Polling that is off can only be shown by its absence: a window longer than the 2 s interval in which no
 * request came (there is no event to await instead).
 */
const longerThanOneInterval = () => new Promise((resolve) => setTimeout(resolve, 2_500));

let server: http.Server;
let url: string;
let statusRequests: number;
let answering: boolean;
/** Requests left to leave unanswered (held open until the client gives up on them). */
let stall: number;

beforeEach(async () => {
  statusRequests = 0;
  answering = true;
  stall = 0;
  server = http.createServer((req, res) => {
    if (req.url?.startsWith('/api/status')) statusRequests += 1;
    if (stall > 0) {
      stall -= 1;
      return;
    }
    if (!answering) {
      req.socket.destroy();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});

afterEach(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('remote liveness check', () => {
  it('asks only while watched, says unreachable and running again, and stops on release and dispose', async () => {
    const manager = new JupyterServerManager({ rootDir: '/', remote: { url, token: 't' } });
    const seen: JupyterServerEvent[] = [];
    manager.onStatusChanged((e) => seen.push(e));
    await manager.start();
    const afterStart = statusRequests;
    // Nothing holds a watch: no polling (a notebook without a kernel session costs the server nothing).
    await until(() => seen.some((e) => e.status === 'running'), 'running');
    await longerThanOneInterval();
    expect(statusRequests).toBe(afterStart);

    const watch = manager.watchLiveness();
    await until(() => statusRequests > afterStart, 'a liveness request');
    // One request that times out is asked again at once; a slow answer is not an outage.
    stall = 1;
    const beforeStall = statusRequests;
    await until(() => statusRequests >= beforeStall + 2, 'the stalled request and its retry', 10_000);
    await until(() => statusRequests >= beforeStall + 3, 'the next regular request', 10_000);
    expect(seen.map((e) => e.status)).not.toContain('unreachable');
    answering = false;
    await until(() => manager.status === 'unreachable', 'unreachable', 10_000);
    expect(seen.at(-1)).toMatchObject({
      status: 'unreachable',
      message: `Jupyter server at ${url} is not answering; retrying`,
    });
    const generation = seen.at(-1)!.generation;
    answering = true;
    await until(() => manager.status === 'running', 'running again', 10_000);
    // The same server: its kernels may still be there, so no new generation.
    expect(seen.at(-1)!.generation).toBe(generation);

    await watch.dispose();
    const afterRelease = statusRequests;
    await longerThanOneInterval();
    expect(statusRequests).toBe(afterRelease);

    const again = manager.watchLiveness();
    await manager.dispose();
    const afterDispose = statusRequests;
    await longerThanOneInterval();
    expect(statusRequests).toBe(afterDispose);
    await again.dispose();
  }, 40_000);
});

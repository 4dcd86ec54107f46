import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Services } from '../../main/services';
import { startWebHost, type WebHost } from '../../main/hosts/web/server';
import WebSocket from 'ws';
import { until } from '../../test-support/until';
import { connectClient, rawExchange, startTestHost, upgradeRequest } from '../../test-support/web-host';

let root: string;
let services: Services;
let staticDir: string;
let host: WebHost;
let closeHost: () => Promise<void>;

beforeAll(async () => {
  ({ host, root, services, staticDir, close: closeHost } = await startTestHost());
});
afterAll(() => closeHost());

const connect = (token = host.token) => connectClient(host, { token });
const ownOrigin = () => `http://127.0.0.1:${host.port}`;

describe('web host', () => {
  it('prints a loopback URL carrying the token', () => {
    expect(host.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${host.port}/\\?token=[\\w-]{20,}$`));
  });

  it('serves the app bundle without the token, a stale token in the address is told so', async () => {
    // The bundle holds nothing from the workspace; a reload (no token in the address, none in a cookie) gets it.
    const bare = await fetch(`http://127.0.0.1:${host.port}/`);
    expect(bare.status).toBe(200);
    expect(await bare.text()).toBe('<!doctype html><title>Kiln</title>');
    expect((await fetch(`http://127.0.0.1:${host.port}/?token=wrong`)).status).toBe(401);
    // A malformed escape or a climb out of the renderer folder is simply not found, never a crash.
    expect((await fetch(`http://127.0.0.1:${host.port}/%E0%A4%A?token=${host.token}`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${host.port}/..%2f..%2fetc%2fpasswd?token=${host.token}`)).status).toBe(404);
    const ok = await fetch(host.url);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-security-policy')).toContain("default-src 'self'");
  });

  it('closes a WebSocket whose first message is a wrong token, or no token, without answering it', async () => {
    await expect(connect('wrong')).rejects.toThrow(/closed 4401/);
    // A request first, as a client that never authenticates would send: no answer, closed.
    const socket = new WebSocket(`ws://127.0.0.1:${host.port}/ws`);
    const received: string[] = [];
    socket.on('message', (data) => received.push(String(data)));
    await new Promise((resolve) => socket.once('open', resolve));
    socket.send(JSON.stringify({ id: 1, channel: 'workspace.read', args: { path: 'hello.txt' } }));
    const [code] = (await once(socket, 'close')) as [number];
    expect(code).toBe(4401);
    expect(received).toEqual([]);
    // The token in the upgrade's query, as the host once took it, is not a first message.
    await expect(connectClient(host, { token: 'wrong', query: `?token=${host.token}` })).rejects.toThrow(/4401/);
  });

  it('refuses to bind beyond loopback unless told explicitly', async () => {
    await expect(startWebHost({ services, staticDir, host: '0.0.0.0' })).rejects.toThrow(/--allow-remote/);
  });

  it('answers contract requests and forwards events', async () => {
    const client = await connect();
    const list = await client.call('workspace.list', { path: '' });
    expect(list.ok).toBe(true);
    expect(list.value).toMatchObject({ path: '', total: 2, names: ['src', 'hello.txt'], kinds: 'df' });
    const write = await client.call('workspace.write', { path: 'src/new.py', text: 'x = 1\n' });
    expect(write.ok).toBe(true);
    await until(() => client.events.length > 0, 'the fs.change event');
    expect(client.events).toContainEqual({
      event: 'fs.change',
      payload: { type: 'created', path: 'src/new.py', isDir: false, origin: 'operator' },
    });
    client.close();
  });

  it('refuses malformed requests with E_BAD_REQUEST naming the field, before any service runs', async () => {
    const client = await connect();
    const badField = await client.call('workspace.write', { path: 'src/x.py', text: 42 });
    expect(badField).toMatchObject({ ok: false, error: { code: 'E_BAD_REQUEST' } });
    expect(badField.error?.message).toContain('text');
    await expect(readFile(path.join(root, 'src/x.py'))).rejects.toThrow();
    expect((await client.call('workspace.nope', {})).error?.code).toBe('E_BAD_REQUEST');
    expect((await client.call(undefined, {})).error?.code).toBe('E_BAD_REQUEST');
    expect((await client.call('workspace.move', { from: 'hello.txt' })).error?.message).toContain('to');
    client.close();
  });

  it('refuses escaping paths with E_OUTSIDE_WORKSPACE and changes nothing on disk', async () => {
    const client = await connect();
    for (const [channel, args] of [
      ['workspace.read', { path: '../../etc/passwd' }],
      ['workspace.write', { path: '/tmp/kiln-escape.txt', text: 'x' }],
      ['workspace.createFile', { path: 'src/../../escape.txt' }],
      ['workspace.move', { from: 'hello.txt', to: '../hello.txt' }],
      ['workspace.delete', { path: 'src/\u0000x' }],
    ] as const) {
      const reply = await client.call(channel, args);
      expect(reply.error?.code, channel).toBe('E_OUTSIDE_WORKSPACE');
    }
    expect(await readFile(path.join(root, 'hello.txt'), 'utf8')).toBe('hello\n');
    await expect(readFile(path.join(root, '..', 'escape.txt'))).rejects.toThrow();
    client.close();
  });

  it('takes no cookie: the old token cookie alone neither connects a socket nor fetches a download', async () => {
    const cookie = { Cookie: `kiln_token_${host.port}=${host.token}`, Origin: ownOrigin() };
    const socket = new WebSocket(`ws://127.0.0.1:${host.port}/ws`, { headers: cookie });
    await once(socket, 'open');
    socket.send(JSON.stringify({ id: 1, channel: 'workspace.stat', args: { path: 'hello.txt' } }));
    expect(((await once(socket, 'close')) as [number])[0]).toBe(4401);
    const viaCookie = await fetch(`http://127.0.0.1:${host.port}/download?path=hello.txt`, { headers: cookie });
    expect(viaCookie.status).toBe(401);
    expect(await viaCookie.text()).not.toContain('hello\n');
  });

  it("refuses the right token from a foreign Origin: scheme, host and port must all be the page's", async () => {
    for (const origin of [
      'http://evil.example',
      `http://evil.example:${host.port}`,
      `https://127.0.0.1:${host.port}`,
      `http://127.0.0.1:${host.port + 1}`,
      `http://127.0.0.2:${host.port}`,
      'null',
      'not a url',
    ]) {
      await expect(connectClient(host, { headers: { Origin: origin } }), origin).rejects.toThrow(/403/);
    }
    for (const origin of [ownOrigin(), `http://localhost:${host.port}`]) {
      const client = await connectClient(host, { headers: { Origin: origin } });
      expect((await client.call('workspace.stat', { path: '' })).ok, origin).toBe(true);
      client.close();
    }
  });

  it('answers only to its own Host names: another Host gets 403 even with the token (DNS rebinding)', async () => {
    for (const hostHeader of ['evil.example', `evil.example:${host.port}`, `127.0.0.1:${host.port + 1}`, '127.0.0.1']) {
      const http = await rawExchange(
        host.port,
        `GET /?token=${host.token} HTTP/1.1\r\nHost: ${hostHeader}\r\nConnection: close\r\n\r\n`,
      );
      expect(http, hostHeader).toMatch(/^HTTP\/1\.1 403/);
      const upgrade = await rawExchange(
        host.port,
        upgradeRequest(host.port, `/ws?token=${host.token}`, { Host: hostHeader }),
      );
      expect(upgrade, hostHeader).toMatch(/^HTTP\/1\.1 403/);
    }
    const noHost = await rawExchange(host.port, `GET /?token=${host.token} HTTP/1.0\r\n\r\n`);
    expect(noHost).toMatch(/^HTTP\/1\.1 403/);
    for (const hostHeader of [`localhost:${host.port}`, `LOCALHOST:${host.port}`, `127.0.0.1:${host.port}`]) {
      const ok = await rawExchange(
        host.port,
        `GET /?token=${host.token} HTTP/1.1\r\nHost: ${hostHeader}\r\nConnection: close\r\n\r\n`,
      );
      expect(ok, hostHeader).toMatch(/^HTTP\/1\.1 200/);
    }
  });

  it('sets no cookie; the page with the token in its address sends no Referer', async () => {
    const page = await fetch(host.url);
    expect(page.headers.get('set-cookie')).toBeNull();
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
  });

  it('lets no page set the last workspace: only the folder-open flow writes it', async () => {
    const client = await connect();
    const before = (await client.call('prefs.get', {})).value as { lastWorkspace: string | null };
    const reply = await client.call('prefs.set', { lastWorkspace: '/etc' });
    expect(reply).toMatchObject({ ok: false, error: { code: 'E_BAD_REQUEST' } });
    expect(((await client.call('prefs.get', {})).value as { lastWorkspace: string | null }).lastWorkspace).toBe(
      before.lastWorkspace,
    );
    expect((await client.call('prefs.set', { minimap: false })).ok).toBe(true);
    client.close();
  });
});

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Services } from '../../main/services';
import { startWebHost, type WebHost } from '../../main/hosts/web/server';
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

const connect = (token = host.token) => connectClient(host, { query: `?token=${token}` });
const ownOrigin = () => `http://127.0.0.1:${host.port}`;

describe('web host', () => {
  it('prints a loopback URL carrying the token', () => {
    expect(host.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${host.port}/\\?token=[\\w-]{20,}$`));
  });

  it('serves nothing over HTTP without the token', async () => {
    expect((await fetch(`http://127.0.0.1:${host.port}/`)).status).toBe(401);
    expect((await fetch(`http://127.0.0.1:${host.port}/?token=wrong`)).status).toBe(401);
    // A malformed escape or a climb out of the renderer folder is simply not found, never a crash.
    expect((await fetch(`http://127.0.0.1:${host.port}/%E0%A4%A?token=${host.token}`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${host.port}/..%2f..%2fetc%2fpasswd?token=${host.token}`)).status).toBe(404);
    const ok = await fetch(host.url);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-security-policy')).toContain("default-src 'self'");
  });

  it('refuses a WebSocket without the right token', async () => {
    await expect(connect('wrong')).rejects.toThrow(/401/);
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

  it("lets in the page with the token, by query or by this port's cookie alone, and nothing else", async () => {
    const cookie = (value: string, name = `kiln_token_${host.port}`) => ({
      Cookie: `${name}=${value}`,
      Origin: ownOrigin(),
    });
    // The cookie alone connects, as the page does after dropping the token from its address.
    const viaCookie = await connectClient(host, { query: '', headers: cookie(host.token) });
    expect((await viaCookie.call('workspace.stat', { path: 'hello.txt' })).ok).toBe(true);
    viaCookie.close();
    await expect(connectClient(host, { query: '', headers: cookie('wrong') })).rejects.toThrow(/401/);
    await expect(connectClient(host, { query: '', headers: cookie(host.token, 'kiln_token_1') })).rejects.toThrow(
      /401/,
    );
    await expect(connectClient(host, { query: '', headers: { Origin: ownOrigin() } })).rejects.toThrow(/401/);
    await expect(connectClient(host, { query: '' })).rejects.toThrow(/401/);
    expect(
      (await fetch(`http://127.0.0.1:${host.port}/`, { headers: { cookie: `kiln_token_${host.port}=${host.token}` } }))
        .status,
    ).toBe(200);
    expect(
      (await fetch(`http://127.0.0.1:${host.port}/`, { headers: { cookie: `kiln_token_${host.port}=nope` } })).status,
    ).toBe(401);
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

  it('remembers the token in an HttpOnly, SameSite=Strict cookie named for its port', async () => {
    const page = await fetch(host.url);
    expect(page.headers.get('set-cookie')).toBe(
      `kiln_token_${host.port}=${host.token}; HttpOnly; SameSite=Strict; Path=/`,
    );
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

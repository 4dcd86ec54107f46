import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { MemoryStore } from '../../prefs';
import { createServices, type Services } from '../../services';
import { makeTempTree } from '../../workspace/test-support';
import { startWebHost, type WebHost } from './server';

let root: string;
let cleanup: () => Promise<void>;
let staticDir: string;
let services: Services;
let host: WebHost;

beforeAll(async () => {
  ({ root, cleanup } = await makeTempTree({ 'hello.txt': 'hello\n', 'src/': '' }));
  staticDir = await mkdtemp(path.join(os.tmpdir(), 'kiln-static-'));
  await writeFile(path.join(staticDir, 'index.html'), '<!doctype html><title>Kiln</title>');
  services = await createServices({ root, dataDir: staticDir, prefsStore: new MemoryStore(), trash: async () => false });
  host = await startWebHost({ services, staticDir });
});
afterAll(async () => {
  await host.close();
  await services.dispose();
  await cleanup();
  await rm(staticDir, { recursive: true, force: true });
});

type Reply = { id: number; ok: boolean; value?: unknown; error?: { code: string; message: string } };

async function connect(token = host.token): Promise<{ call: (channel: unknown, args: unknown) => Promise<Reply>; events: unknown[]; close: () => void }> {
  const socket = new WebSocket(`ws://127.0.0.1:${host.port}/ws?token=${token}`);
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
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
    expect((list.value as { name: string }[]).map((e) => e.name)).toEqual(['src', 'hello.txt']);
    const write = await client.call('workspace.write', { path: 'src/new.py', text: 'x = 1\n' });
    expect(write.ok).toBe(true);
    for (let i = 0; i < 100 && !client.events.length; i++) await new Promise((r) => setTimeout(r, 50));
    expect(client.events).toContainEqual({ event: 'fs.change', payload: { type: 'created', path: 'src/new.py', isDir: false, origin: 'operator' } });
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
});

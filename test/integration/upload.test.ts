import { readdir, readFile, symlink, mkdir, writeFile, mkdtemp, rm, readlink, lstat } from 'node:fs/promises';
import { watch as fsWatch } from 'node:fs';
import { request as httpRequest } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import type { FsChange } from '../../shared/contract';
import type { Services } from '../../main/services';
import type { WebHost } from '../../main/hosts/web/server';
import { Workspace } from '../../main/workspace';
import { until } from '../../test-support/until';
import { authorization, connectClient, startTestHost } from '../../test-support/web-host';

let root: string;
let services: Services;
let host: WebHost;
let closeHost: () => Promise<void>;
const changes: FsChange[] = [];

beforeAll(async () => {
  ({ host, root, services, close: closeHost } = await startTestHost());
  services.changes.onDidChange((change) => changes.push(change));
});
afterAll(() => closeHost());

const uploadUrl = (target: string, conflict = 'reject') =>
  `http://127.0.0.1:${host.port}/upload?path=${encodeURIComponent(target)}&conflict=${conflict}`;

async function put(
  target: string,
  body: string | Blob,
  headers: Record<string, string> = authorization(host.token),
  conflict?: string,
) {
  const response = await fetch(uploadUrl(target, conflict), { method: 'PUT', body, headers });
  const json = response.headers.get('content-type') === 'application/json';
  return {
    status: response.status,
    body: json ? ((await response.json()) as { ok: boolean; value?: unknown; error?: { code: string } }) : null,
  };
}

/** Kiln's private temp files left anywhere under the workspace. */
async function temps(): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(root, { recursive: true }))
    if (path.basename(entry).startsWith('.kiln-')) found.push(entry);
  return found;
}

describe('web host upload endpoint', () => {
  it('writes the bytes it is sent, exactly, and reports the file as created by the operator', async () => {
    const bytes = Buffer.from([0, 1, 2, 255, 254, 13, 10, 0x80]);
    const answer = await put('src/deep/er/bytes.bin', new Blob([bytes]));
    expect(answer).toMatchObject({
      status: 200,
      body: { ok: true, value: { path: 'src/deep/er/bytes.bin', size: 8 } },
    });
    expect(await readFile(path.join(root, 'src/deep/er/bytes.bin'))).toEqual(bytes);
    expect(changes).toContainEqual({
      type: 'created',
      path: 'src/deep/er/bytes.bin',
      isDir: false,
      origin: 'operator',
    });
    expect(changes).toContainEqual({ type: 'created', path: 'src/deep', isDir: true, origin: 'operator' });
  });

  it('refuses an upload without the Authorization header, with a wrong token, by the old cookie or query, or from a foreign page, and writes nothing', async () => {
    expect((await put('no-token.txt', 'x', {})).status).toBe(401);
    expect((await put('no-token.txt', 'x', authorization('wrong'))).status).toBe(401);
    expect((await put('no-token.txt', 'x', { authorization: host.token })).status).toBe(401);
    expect((await put('no-token.txt', 'x', { cookie: `kiln_token_${host.port}=${host.token}` })).status).toBe(401);
    const viaQuery = await fetch(`${uploadUrl('no-token.txt')}&token=${host.token}`, { method: 'PUT', body: 'x' });
    expect(viaQuery.status).toBe(401);
    expect(
      (await put('no-token.txt', 'x', { ...authorization(host.token), origin: 'http://evil.example' })).status,
    ).toBe(403);
    await expect(lstat(path.join(root, 'no-token.txt'))).rejects.toThrow();
  });

  it('a refused request cannot hold its connection open by sending its body slowly', async () => {
    const req = httpRequest(uploadUrl('slow.bin'), {
      method: 'PUT',
      headers: { 'content-length': String(1024 * 1024) },
    });
    req.on('error', () => undefined);
    const status = new Promise<number>((resolve) => req.on('response', (res) => resolve(res.statusCode ?? 0)));
    const closed = new Promise<void>((resolve) => req.on('close', () => resolve()));
    req.write('a few bytes of a megabyte');
    expect(await status).toBe(401);
    await closed;
    await expect(lstat(path.join(root, 'slow.bin'))).rejects.toThrow();
  });

  it('refuses a path that escapes the workspace, by climbing, absolutely or through a link, and writes nothing outside', async () => {
    const outside = await mkdtemp(path.join(os.tmpdir(), 'kiln-upload-outside-'));
    await symlink(outside, path.join(root, 'out-link'));
    try {
      for (const target of ['../escape.txt', `${outside}/abs.txt`, 'src/../../escape.txt', 'out-link/through.txt']) {
        const answer = await put(target, 'x');
        expect(answer.status, target).toBe(403);
        expect(answer.body?.error?.code, target).toBe('E_OUTSIDE_WORKSPACE');
      }
      expect(await readdir(outside)).toEqual([]);
      await expect(lstat(path.join(root, '..', 'escape.txt'))).rejects.toThrow();
    } finally {
      await rm(path.join(root, 'out-link'));
      await rm(outside, { recursive: true, force: true });
    }
  });

  it('refuses to replace unless asked, and replaces when asked', async () => {
    const clash = await put('hello.txt', 'new');
    expect(clash).toMatchObject({ status: 409, body: { ok: false, error: { code: 'E_EXISTS' } } });
    expect(await readFile(path.join(root, 'hello.txt'), 'utf8')).toBe('hello\n');
    expect((await put('src', 'x', authorization(host.token), 'overwrite')).body?.error?.code).toBe('E_IS_A_DIRECTORY');
    expect((await put('hello.txt', 'replaced', authorization(host.token), 'overwrite')).status).toBe(200);
    expect(await readFile(path.join(root, 'hello.txt'), 'utf8')).toBe('replaced');
    expect((await put('x.txt', 'x', authorization(host.token), 'bogus')).status).toBe(400);
    expect(
      (await fetch(uploadUrl('x.txt'), { method: 'POST', body: 'x', headers: authorization(host.token) })).status,
    ).toBe(400);
    expect(await temps()).toEqual([]);
  });

  it('a client that goes away mid-body leaves no file and no temp behind, and is not logged as malformed', async () => {
    const warnings: string[] = [];
    const warn = vi
      .spyOn(console, 'warn')
      .mockImplementation((...args: unknown[]) => void warnings.push(args.join(' ')));
    onTestFinished(() => warn.mockRestore());
    const req = httpRequest(uploadUrl('half.bin'), {
      method: 'PUT',
      headers: { ...authorization(host.token), 'content-length': String(64 * 1024 * 1024) },
    });
    req.on('error', () => undefined);
    req.write(Buffer.alloc(4 * 1024 * 1024, 7));
    await until(async () => (await temps()).length === 1, 'the temp file being written');
    req.destroy();
    await until(async () => (await temps()).length === 0, 'the temp file removed');
    await expect(lstat(path.join(root, 'half.bin'))).rejects.toThrow();
    // A cancel is the operator's own doing, not bad input: the host stays quiet about it.
    expect(warnings.filter((w) => w.includes('refused'))).toEqual([]);
  });

  it("a big upload's writes wake no watch on its folder: the bytes go to a temp folder no one watches", async () => {
    await mkdir(path.join(root, 'quiet'));
    const seen: { event: string; name: string | null }[] = [];
    const watch = fsWatch(path.join(root, 'quiet'), (event, name) => seen.push({ event, name }));
    onTestFinished(() => watch.close());
    const bytes = Buffer.alloc(16 * 1024 * 1024, 3);
    expect((await put('quiet/big.bin', new Blob([bytes]))).status).toBe(200);
    expect((await readFile(path.join(root, 'quiet/big.bin'))).equals(bytes)).toBe(true);
    // inotify keeps order: once the marker's event is in, every event of the upload is too.
    await writeFile(path.join(root, 'quiet/marker'), '');
    await until(() => seen.some((e) => e.name === 'marker'), 'the marker seen by the watch');
    // The temp folder's creation and removal, and the file's arrival; never a write to a file in this folder.
    expect(seen.filter((e) => e.event === 'change' && e.name !== 'marker')).toEqual([]);
    expect(seen.some((e) => e.name === 'big.bin')).toBe(true);
    expect(await temps()).toEqual([]);
  });

  it("refuses copying by path over the WebSocket: on the web host those paths are the host machine's", async () => {
    const client = await connectClient(host);
    const answer = await client.call('upload.copyIn', { source: '/etc/hostname', toDir: '' });
    expect(answer).toMatchObject({ ok: false, error: { code: 'E_BAD_REQUEST' } });
    await expect(lstat(path.join(root, 'hostname'))).rejects.toThrow();
    client.close();
  });
});

describe('Workspace.copyIn (the Electron drop)', () => {
  it('copies a folder with its structure, links as links, keeps both on a clash, refuses into itself', async () => {
    const outside = await mkdtemp(path.join(os.tmpdir(), 'kiln-copyin-'));
    const ws = await Workspace.open({ root });
    try {
      await mkdir(path.join(outside, 'pack/inner'), { recursive: true });
      await writeFile(path.join(outside, 'pack/inner/a.txt'), 'A');
      await symlink('/etc/passwd', path.join(outside, 'pack/link'));
      expect(await ws.copyIn(path.join(outside, 'pack'), 'src')).toEqual({ path: 'src/pack' });
      expect(await readFile(path.join(root, 'src/pack/inner/a.txt'), 'utf8')).toBe('A');
      expect(await readlink(path.join(root, 'src/pack/link'))).toBe('/etc/passwd');
      await expect(ws.copyIn(path.join(outside, 'pack'), 'src')).rejects.toMatchObject({ code: 'E_EXISTS' });
      expect(await ws.copyIn(path.join(outside, 'pack'), 'src', { onConflict: 'keepBoth' })).toEqual({
        path: 'src/pack copy',
      });
      await expect(ws.copyIn(path.join(root, 'src'), 'src/pack')).rejects.toMatchObject({ code: 'E_INTO_SELF' });
      await expect(ws.copyIn(path.join(outside, 'pack'), '../')).rejects.toMatchObject({ code: 'E_OUTSIDE_WORKSPACE' });
      // The move modifier: the source is gone, the target whole.
      await writeFile(path.join(outside, 'moved.txt'), 'M');
      expect(await ws.copyIn(path.join(outside, 'moved.txt'), '', { move: true })).toEqual({ path: 'moved.txt' });
      await expect(lstat(path.join(outside, 'moved.txt'))).rejects.toThrow();
      expect(await readFile(path.join(root, 'moved.txt'), 'utf8')).toBe('M');
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it('Replace of a clashing folder makes it what was dropped, never a merge (the web host does the same)', async () => {
    const outside = await mkdtemp(path.join(os.tmpdir(), 'kiln-copyin-replace-'));
    const ws = await Workspace.open({ root });
    try {
      await mkdir(path.join(root, 'kit/old'), { recursive: true });
      await writeFile(path.join(root, 'kit/old/only-old.txt'), 'old');
      await writeFile(path.join(root, 'kit/same.txt'), 'old');
      await mkdir(path.join(outside, 'kit'));
      await writeFile(path.join(outside, 'kit/same.txt'), 'new');
      expect(await ws.copyIn(path.join(outside, 'kit'), '', { onConflict: 'overwrite' })).toEqual({ path: 'kit' });
      expect(await readdir(path.join(root, 'kit'))).toEqual(['same.txt']);
      expect(await readFile(path.join(root, 'kit/same.txt'), 'utf8')).toBe('new');
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });
});

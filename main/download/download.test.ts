import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import http from 'node:http';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebHost } from '../hosts/web/server';
import { makeTempDir, makeTempTree } from '../../test-support/temp-workspace';
import { until } from '../../test-support/until';
import { connectClient, startTestHost, type ContractClient } from '../../test-support/web-host';
import { attachmentDisposition } from './headers';

const run = promisify(execFile);
let host: WebHost;
let root: string;
let outside: string;
let closeAll: () => Promise<void>;
let client: ContractClient;
const binary = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 7919) % 256));

beforeAll(async () => {
  const started = await startTestHost({
    'hello.txt': 'hello\n',
    'data/raw.bin': '',
    'data/notes/é ü.md': '# notes\n',
    'data/empty/': '',
  });
  ({ host, root } = started);
  await writeFile(path.join(root, 'data/raw.bin'), binary);
  // Kiln's own temp file (a save in flight) is not part of a download.
  await writeFile(path.join(root, 'data/.kiln-0123456789ab.tmp'), 'half');
  const away = await makeTempTree({ 'secret.txt': 'top secret\n' });
  outside = away.root;
  await symlink(path.join(outside, 'secret.txt'), path.join(root, 'secret-link.txt'));
  await symlink(outside, path.join(root, 'data/escape'));
  await symlink('../hello.txt', path.join(root, 'data/hello-link.txt'));
  client = await connectClient(host);
  closeAll = async () => {
    client.close();
    await started.close();
    await away.cleanup();
  };
});
afterAll(() => closeAll());

/** The page's way: a single-use ticket over the socket, then a plain GET of the URL it names. */
async function ticketUrl(rel: string): Promise<string> {
  const reply = await client.call('download.ticket', { path: rel });
  return (reply.value as { url: string }).url;
}
const download = async (rel: string) => fetch(`http://127.0.0.1:${host.port}${await ticketUrl(rel)}`);

/**
 * Starts downloading `rel`, drops the connection at its first bytes, and waits until the host has closed every file
 * the download opened (its open descriptors back to what they were).
 */
async function cancelAfterFirstChunk(rel: string, what: string): Promise<void> {
  const openFds = () => readdirSync('/proc/self/fd').length;
  const before = openFds();
  const url = await ticketUrl(rel);
  await new Promise<void>((resolve, reject) => {
    const request = http.get({ host: '127.0.0.1', port: host.port, path: url }, (response) => {
      response.once('data', () => {
        request.destroy();
        resolve();
      });
    });
    request.on('error', (err) => ((err as NodeJS.ErrnoException).code === 'ECONNRESET' ? resolve() : reject(err)));
  });
  await until(() => openFds() <= before, what);
}

describe('downloads from the web host', () => {
  it('serves a file as an attachment with its type and exact bytes', async () => {
    const text = await download('hello.txt');
    expect(text.status).toBe(200);
    expect(text.headers.get('content-disposition')).toBe(
      `attachment; filename="hello.txt"; filename*=UTF-8''hello.txt`,
    );
    expect(text.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(text.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await text.text()).toBe('hello\n');
    const bin = await download('data/raw.bin');
    expect(bin.headers.get('content-type')).toBe('application/octet-stream');
    expect(Number(bin.headers.get('content-length'))).toBe(binary.length);
    expect(Buffer.from(await bin.arrayBuffer()).equals(binary)).toBe(true);
  });

  it('names a non-ASCII file exactly (RFC 6266 filename*)', async () => {
    const res = await download('data/notes/é ü.md');
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename="_ _.md"; filename*=UTF-8''%C3%A9%20%C3%BC.md`,
    );
    expect(attachmentDisposition(`a"b;c%.txt`)).toBe(
      `attachment; filename="a_b_c_.txt"; filename*=UTF-8''a%22b%3Bc%25.txt`,
    );
  });

  it('streams a folder as a zip with every file byte for byte; links stay links, never followed', async () => {
    const res = await download('data');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    expect(res.headers.get('content-disposition')).toContain(`filename="data.zip"`);
    const { dir, cleanup } = await makeTempDir('kiln-unzip-');
    try {
      await writeFile(path.join(dir, 'data.zip'), Buffer.from(await res.arrayBuffer()));
      const listing = await run('/usr/bin/python3', [
        '-c',
        'import sys, zipfile, json; z = zipfile.ZipFile(sys.argv[1]); print(json.dumps({i.filename: i.external_attr >> 16 for i in z.infolist()}))',
        path.join(dir, 'data.zip'),
      ]);
      const modes = JSON.parse(listing.stdout) as Record<string, number>;
      expect(Object.keys(modes).sort()).toEqual(
        [
          'data/',
          'data/empty/',
          'data/escape',
          'data/hello-link.txt',
          'data/notes/',
          'data/notes/é ü.md',
          'data/raw.bin',
        ].sort(),
      );
      expect(modes['data/escape']! & 0o170000).toBe(0o120000);
      await run('/usr/bin/python3', ['-m', 'zipfile', '-e', path.join(dir, 'data.zip'), path.join(dir, 'out')]);
      expect((await readFile(path.join(dir, 'out/data/raw.bin'))).equals(binary)).toBe(true);
      expect(await readFile(path.join(dir, 'out/data/notes/é ü.md'), 'utf8')).toBe('# notes\n');
      // Python writes a link entry as a file holding its target: the outside folder's path, not its secret.
      expect(await readFile(path.join(dir, 'out/data/escape'), 'utf8')).toBe(outside);
    } finally {
      await cleanup();
    }
  });

  it('downloads the whole workspace under its folder name', async () => {
    const res = await download('');
    expect(res.headers.get('content-disposition')).toContain(`filename="${path.basename(root)}.zip"`);
    await res.arrayBuffer();
  });

  it('refuses without a ticket, even with the token in the query or in the old cookie', async () => {
    const bare = `http://127.0.0.1:${host.port}/download?path=hello.txt`;
    expect((await fetch(bare)).status).toBe(401);
    expect((await fetch(bare, { headers: { cookie: `kiln_token_${host.port}=${host.token}` } })).status).toBe(401);
    const viaQuery = await fetch(`${bare}&token=${host.token}`);
    expect(viaQuery.status).toBe(401);
    expect(await viaQuery.text()).not.toContain('hello');
  });

  it('refuses paths that escape: .., absolute, a link leading out, a link inside a folder path', async () => {
    for (const rel of ['../etc/passwd', 'data/../../x', '/etc/passwd', 'secret-link.txt', 'data/escape/secret.txt']) {
      const res = await download(rel);
      expect([rel, res.status]).toEqual([rel, 403]);
      expect(await res.text()).not.toContain('top secret');
    }
    expect((await download('data/escape')).status).toBe(403);
  });

  it('a cancelled zip download stops reading: its files are closed and the host keeps serving', async () => {
    await mkdir(path.join(root, 'big'));
    await writeFile(path.join(root, 'big/huge.bin'), Buffer.alloc(64 * 1024 * 1024, 7));
    await cancelAfterFirstChunk('big', 'the zipped file to be closed');
    expect((await download('hello.txt')).status).toBe(200);
  });

  it('sends a file of many reads byte for byte (two buffers reused, never a stale byte)', async () => {
    // 2.5 reads of 1 MiB, each read different, so a buffer reused before its bytes were sent would show.
    const big = Buffer.from(Array.from({ length: 2.5 * 1024 * 1024 }, (_, i) => (i * 31 + (i >> 20)) % 251));
    await writeFile(path.join(root, 'many-reads.bin'), big);
    const got = await download('many-reads.bin');
    expect(Number(got.headers.get('content-length'))).toBe(big.length);
    expect(Buffer.from(await got.arrayBuffer()).equals(big)).toBe(true);
  });

  it('a cancelled file download stops reading and closes the file; the host keeps serving', async () => {
    await writeFile(path.join(root, 'long.bin'), Buffer.alloc(64 * 1024 * 1024, 3));
    await cancelAfterFirstChunk('long.bin', 'the downloaded file to be closed');
    expect((await download('hello.txt')).status).toBe(200);
  });

  it('answers a missing path with 404 and a request without a path with 400, and keeps serving', async () => {
    expect((await download('nope.txt')).status).toBe(404);
    const ticket = new URL(await ticketUrl('hello.txt'), 'http://h').searchParams.get('ticket')!;
    const bare = await fetch(`http://127.0.0.1:${host.port}/download?ticket=${ticket}`);
    expect(bare.status).toBe(400);
    expect((await download('data/hello-link.txt')).status).toBe(200);
  });
});

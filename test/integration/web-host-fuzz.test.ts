import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebHost } from '../../main/hosts/web/server';
import { MAX_FRAME_BYTES } from '../../main/hosts/web/server';
import {
  connectClient,
  frame,
  rawExchange,
  rawSocket,
  startTestHost,
  upgradeRequest,
} from '../../test-support/web-host';

let host: WebHost;
let closeHost: () => Promise<void>;

beforeAll(async () => {
  ({ host, close: closeHost } = await startTestHost({ 'hello.txt': 'hello\n' }));
});
afterAll(() => closeHost());

/** After every case: the page is served and a contract request over a fresh WebSocket is answered. */
async function expectStillServing(): Promise<void> {
  expect((await fetch(host.url)).status).toBe(200);
  const client = await connectClient(host);
  const reply = await client.call('workspace.read', { path: 'hello.txt' });
  client.close();
  expect(reply).toMatchObject({ ok: true, value: { text: 'hello\n' } });
}

const statusOf = (response: string) => /^HTTP\/1\.1 (\d{3})/.exec(response)?.[1] ?? 'closed';

describe('web host fuzz: malformed upgrades', () => {
  const cases: Array<[string, (port: number, token: string) => string, string[]]> = [
    ['a target new URL() cannot parse', (port) => upgradeRequest(port, '//['), ['400']],
    ['an unparsable target with the token', (port, token) => upgradeRequest(port, `//[?token=${token}`), ['400']],
    ['an upgrade to another path', (port, token) => upgradeRequest(port, `/other?token=${token}`), ['404']],
    [
      'no Sec-WebSocket-Key',
      (port, token) => upgradeRequest(port, `/ws?token=${token}`, { 'Sec-WebSocket-Key': undefined }),
      ['400'],
    ],
    [
      'an unknown WebSocket version',
      (port, token) => upgradeRequest(port, `/ws?token=${token}`, { 'Sec-WebSocket-Version': '99' }),
      ['400', '426'],
    ],
    [
      'a garbage Upgrade header',
      (port, token) => upgradeRequest(port, `/ws?token=${token}`, { Upgrade: 'h2c' }),
      ['400', '200'],
    ],
    [
      'no Host header',
      (port, token) => upgradeRequest(port, `/ws?token=${token}`, { Host: undefined }),
      ['400', '403'],
    ],
    [
      'a foreign Host',
      (port, token) => upgradeRequest(port, `/ws?token=${token}`, { Host: 'rebind.example' }),
      ['403'],
    ],
    [
      'a foreign Origin',
      (port, token) => upgradeRequest(port, `/ws?token=${token}`, { Origin: 'http://evil.example' }),
      ['403'],
    ],
    [
      'an Origin that is not a URL',
      (port, token) => upgradeRequest(port, `/ws?token=${token}`, { Origin: '%%%' }),
      ['403'],
    ],
    ['a request line of garbage', () => 'GARBAGE\r\n\r\n', ['400']],
    [
      'a header without a colon',
      (port) => `GET /ws HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nno colon here\r\n\r\n`,
      ['400'],
    ],
    ['a NUL in the target', (port) => upgradeRequest(port, '/ws\u0000?token=x'), ['400']],
    ['oversized headers', (port) => upgradeRequest(port, '/ws', { 'X-Big': 'x'.repeat(64 * 1024) }), ['431', '400']],
  ];
  for (const [name, build, statuses] of cases) {
    it(`answers ${name} (${statuses.join('/')}) and keeps serving`, async () => {
      const response = await rawExchange(host.port, build(host.port, host.token));
      expect(statuses).toContain(statusOf(response));
      await expectStillServing();
    });
  }

  it('survives generated request targets and header values', async () => {
    const chars = fc.constantFrom('/', '[', ']', '%', '?', '#', ':', '@', '\\', ' ', 'a', '\u00ff', '\u0001', '.', '=');
    const text = fc.array(chars, { maxLength: 24 }).map((cs) => cs.join(''));
    await fc.assert(
      fc.asyncProperty(text, text, text, async (target, origin, hostName) => {
        const response = await rawExchange(
          host.port,
          upgradeRequest(host.port, `/${target}`, { Origin: origin, Host: hostName || undefined }),
        );
        expect(['400', '401', '403', '404', '431', 'closed']).toContain(statusOf(response));
      }),
      { numRuns: 60 },
    );
    await expectStillServing();
  });
});

describe('web host fuzz: malformed frames (with the token)', () => {
  const cases: Array<[string, Buffer]> = [
    ['invalid UTF-8 in a text frame', frame({ opcode: 0x1, payload: Buffer.from([0xc3, 0x28, 0xff]) })],
    ['RSV bits without an extension', frame({ opcode: 0x1, rsv: 0b111, payload: Buffer.from('{}') })],
    ['an unmasked client frame', frame({ opcode: 0x1, masked: false, payload: Buffer.from('{}') })],
    ['a reserved opcode', frame({ opcode: 0x3, payload: Buffer.from('x') })],
    ['a close frame with an invalid code', frame({ opcode: 0x8, payload: Buffer.from([0x03, 0xe7]) })],
    ['a close frame of one byte', frame({ opcode: 0x8, payload: Buffer.from([0x03]) })],
    ['a fragmented ping', frame({ opcode: 0x9, fin: false, payload: Buffer.from('p') })],
    ['a continuation with nothing to continue', frame({ opcode: 0x0, payload: Buffer.from('x') })],
    ['a frame larger than the contract needs', frame({ opcode: 0x2, declaredLength: MAX_FRAME_BYTES + 1 })],
    ['a message that is not JSON', frame({ opcode: 0x1, payload: Buffer.from('{"id":1,') })],
    ['JSON null', frame({ opcode: 0x1, payload: Buffer.from('null') })],
  ];
  for (const [name, bytes] of cases) {
    it(`closes the socket on ${name}, or answers it, and keeps serving`, async () => {
      const socket = await rawSocket(host.port, host.token);
      // The host either closes this one socket or answers (a malformed request gets its 400); it never
      // leaves the frame unanswered.
      const handled = new Promise<void>((resolve) => {
        socket.once('close', () => resolve());
        socket.once('data', () => resolve());
      });
      socket.on('error', () => undefined);
      socket.write(bytes);
      await handled;
      socket.destroy();
      await expectStillServing();
    });
  }

  it('refuses a 200 MB frame by its declared length, without holding it in memory', async () => {
    const socket = await rawSocket(host.port, host.token);
    socket.on('error', () => undefined);
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    const before = process.memoryUsage().rss;
    const size = 200 * 1024 * 1024;
    socket.write(frame({ opcode: 0x2, declaredLength: size }));
    const chunk = Buffer.alloc(1024 * 1024);
    let open = true;
    void closed.then(() => (open = false));
    for (let sent = 0; open && sent < size; sent += chunk.length) {
      if (!socket.write(chunk)) await Promise.race([new Promise((resolve) => socket.once('drain', resolve)), closed]);
    }
    await closed;
    const grown = process.memoryUsage().rss - before;
    expect(grown).toBeLessThan(64 * 1024 * 1024);
    await expectStillServing();
  });

  it('refuses a message fragmented past the cap the same way', async () => {
    const socket = await rawSocket(host.port, host.token);
    socket.on('error', () => undefined);
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    let open = true;
    void closed.then(() => (open = false));
    const piece = Buffer.alloc(4 * 1024 * 1024, 0x20);
    for (let i = 0; open && i * piece.length <= MAX_FRAME_BYTES + piece.length; i++) {
      const fragment = frame({ opcode: i === 0 ? 0x1 : 0x0, fin: false, payload: piece });
      if (!socket.write(fragment))
        await Promise.race([new Promise((resolve) => socket.once('drain', resolve)), closed]);
    }
    await closed;
    await expectStillServing();
  });
});

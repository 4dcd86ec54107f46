/**
 * Kernel sockets that speak ZMQ straight to the kernels of Kiln's embedded Jupyter server.
 *
 * Through the server, every kernel message crosses one more process (the server's Python relay, on the same
 * two cores as the kernel), which was most of what a short execution's round trip cost beyond the kernel.
 * The server still owns the kernels (start, restart, interrupt, shutdown over REST): this object stands in for
 * the browser-style WebSocket @jupyterlab/services opens per kernel connection. It opens that WebSocket as
 * before, and once the kernel's connection file (in the server's private runtime folder) and the `zeromq`
 * addon are at hand, it talks to the kernel's shell, control, stdin and IOPub sockets itself, handing
 * @jupyterlab/services the same v1-protocol frames the server would. From the server's socket it then keeps
 * only what the server says itself: the kernel restarting or dead. Without a connection file (a remote
 * server) or the addon, or if the kernel does not answer on ZMQ, it relays the WebSocket as it is.
 *
 * Unlike the server's relay, nothing is buffered while no socket is open (a reconnect loses what the kernel
 * said in between, as a browser tab that reloads does).
 */
import { createHmac, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type WebSocket from 'ws';
import type * as Zmq from 'zeromq';

export const V1_PROTOCOL = 'v1.kernel.websocket.jupyter.org';

type Channel = 'shell' | 'control' | 'stdin' | 'iopub';
type Handler = ((event: unknown) => void) | null;
type RelayFactory = (url: string, protocols?: string | string[]) => WebSocket;

/** The kernel statuses only the server knows (it restarts kernels and sees them die); kernels never send these. */
const SERVER_STATUSES = new Set(['restarting', 'autorestarting', 'dead']);
/** How long a kernel may take to show it hears Kiln on ZMQ before the connection falls back to the relay. */
const NUDGE_TIMEOUT_MS = 10_000;
const NUDGE_INTERVAL_MS = 500;
const DELIMITER = Buffer.from('<IDS|MSG>');

interface ConnectionFile {
  transport: string;
  ip: string;
  shell_port: number;
  control_port: number;
  stdin_port: number;
  iopub_port: number;
  key: string;
  signature_scheme: string;
}

/**
 * A `WebSocket` class for @jupyterlab/services' server settings, bound to the server's runtime folder.
 * `nudgeTimeoutMs`: how long a kernel may stay silent on ZMQ before its connection keeps the relay.
 */
export function directKernelSocketClass(
  runtimeDir: string,
  relay: RelayFactory,
  nudgeTimeoutMs = NUDGE_TIMEOUT_MS,
): typeof globalThis.WebSocket {
  return class extends DirectKernelSocket {
    constructor(url: string | URL, protocols?: string | string[]) {
      super(String(url), protocols, runtimeDir, relay, nudgeTimeoutMs);
    }
  } as unknown as typeof globalThis.WebSocket;
}

export class DirectKernelSocket {
  onopen: Handler = null;
  onmessage: Handler = null;
  onclose: Handler = null;
  onerror: Handler = null;
  /** @jupyterlab/services sets this; frames are always ArrayBuffers. */
  binaryType = 'arraybuffer';
  /** The protocol the server picked; set when the socket opens, as a browser does. */
  protocol = '';
  /** Whether messages come over ZMQ (tests and diagnostics). */
  direct = false;

  private readonly relay: WebSocket;
  private state: 'opening' | 'open' | 'closed' = 'opening';
  private kernel: ZmqKernel | null = null;
  /** What the server sent while the ZMQ side was still being set up. */
  private early: ArrayBuffer[] = [];

  constructor(
    url: string,
    protocols: string | string[] | undefined,
    runtimeDir: string,
    relay: RelayFactory,
    private readonly nudgeTimeoutMs: number,
  ) {
    this.relay = relay(url, protocols);
    this.relay.binaryType = 'arraybuffer';
    this.relay.onopen = () => void this.opened(url, runtimeDir);
    this.relay.onmessage = (event) => this.fromServer(event.data as ArrayBuffer);
    this.relay.onerror = (event) => this.onerror?.(event);
    this.relay.onclose = (event) => {
      this.state = 'closed';
      this.kernel?.close();
      this.onclose?.(event);
    };
  }

  send(data: ArrayBuffer | string): void {
    if (this.state !== 'open') throw new Error('The kernel socket is not open');
    if (this.kernel && typeof data !== 'string') this.kernel.send(data);
    else this.relay.send(data);
  }

  close(code?: number, reason?: string): void {
    this.state = 'closed';
    this.kernel?.close();
    this.relay.close(code, reason);
  }

  private async opened(url: string, runtimeDir: string): Promise<void> {
    // Kernel ids are UUIDs; anything else names no connection file of Kiln's.
    const kernelId = /\/api\/kernels\/([\w-]+)\/channels$/.exec(new URL(url).pathname)?.[1];
    const kernel =
      this.relay.protocol === V1_PROTOCOL && kernelId
        ? await ZmqKernel.connect(
            path.join(runtimeDir, `kernel-${kernelId}.json`),
            (frame) => this.deliver(frame),
            this.nudgeTimeoutMs,
            // expected: no connection file of Kiln's for this kernel, or it did not answer: the server's relay serves it
          ).catch(() => null)
        : null;
    if (this.state === 'closed') {
      kernel?.close();
      return;
    }
    this.kernel = kernel;
    this.direct = kernel !== null;
    this.protocol = this.relay.protocol;
    this.state = 'open';
    this.onopen?.({ type: 'open' });
    const early = this.early;
    this.early = [];
    for (const frame of early) this.fromServer(frame);
  }

  private fromServer(frame: ArrayBuffer): void {
    if (this.state === 'opening') this.early.push(frame);
    else if (this.state === 'open' && (!this.kernel || isServerStatus(frame))) this.deliver(frame);
  }

  private deliver(frame: ArrayBuffer): void {
    if (this.state === 'open') this.onmessage?.({ data: frame });
  }
}

/** One kernel's four ZMQ sockets, speaking the Jupyter wire protocol with the kernel's key. */
class ZmqKernel {
  /** Requests Kiln sent only to learn the sockets are connected: their replies and statuses are nobody's. */
  private readonly nudges = new Set<string>();
  private readonly sending = new Map<Zmq.Dealer, Promise<void>>();
  private closed = false;
  private reportedListenerError = false;

  private constructor(
    private readonly info: ConnectionFile,
    private readonly sockets: Record<Exclude<Channel, 'iopub'>, Zmq.Dealer> & { iopub: Zmq.Subscriber },
    private readonly session: string,
  ) {}

  /**
   * Connects to the kernel named by `connectionFile` and resolves once its IOPub messages reach Kiln and it
   * answers a request (ZMQ subscriptions take a moment to join: what is published before is lost).
   */
  static async connect(
    connectionFile: string,
    deliver: (frame: ArrayBuffer) => void,
    timeoutMs: number,
  ): Promise<ZmqKernel> {
    const info = JSON.parse(await readFile(connectionFile, 'utf8')) as ConnectionFile;
    if (info.transport !== 'tcp' || (info.key && info.signature_scheme !== 'hmac-sha256'))
      throw new Error(`Unsupported kernel connection: ${info.transport}, ${info.signature_scheme}`);
    const zmq = await loadZmq();
    // The stdin socket shares the shell socket's identity: the kernel routes input requests by it.
    const routingId = randomUUID();
    const address = (port: number) => `tcp://${info.ip}:${port}`;
    const dealer = (port: number) => {
      const socket = new zmq.Dealer({ routingId, linger: 0 });
      socket.connect(address(port));
      return socket;
    };
    // No high-water mark: a SUB socket past it drops messages, and outputs must all arrive (as the relay's do).
    const iopub = new zmq.Subscriber({ linger: 0, receiveHighWaterMark: 0 });
    iopub.connect(address(info.iopub_port));
    iopub.subscribe();
    const sockets = {
      shell: dealer(info.shell_port),
      control: dealer(info.control_port),
      stdin: dealer(info.stdin_port),
      iopub,
    };
    const kernel = new ZmqKernel(info, sockets, randomUUID());
    try {
      await kernel.nudge(deliver, timeoutMs);
      return kernel;
    } catch (err) {
      kernel.close();
      throw err;
    }
  }

  /** Sends a v1 frame from @jupyterlab/services to the kernel, signed. */
  send(frame: ArrayBuffer): void {
    const { channel, parts } = decodeV1(frame);
    if (channel === 'shell' || channel === 'control' || channel === 'stdin') this.queue(this.sockets[channel], parts);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const socket of Object.values(this.sockets)) socket.close();
  }

  private async nudge(deliver: (frame: ArrayBuffer) => void, timeoutMs: number): Promise<void> {
    let heardIopub = false;
    let shellAnswered = false;
    // A kernel busy with a cell answers on shell only when the cell ends, on control at once: control is asked
    // once shell has been silent for a round. Control requests run beside the shell's, so a control request still
    // unanswered would put its busy and idle statuses amid the operator's first cell (and the server would record
    // the kernel idle mid-cell): the latest one asked must be answered too (the earlier ones are, then).
    let control: { id: string; answered: boolean } | null = null;
    let ready: () => void = () => undefined;
    const done = new Promise<void>((resolve) => (ready = resolve));
    const check = () => {
      if (heardIopub && (control ? control.answered : shellAnswered)) ready();
    };
    for (const channel of Object.keys(this.sockets) as Channel[]) {
      void this.receive(channel, (parts) => {
        const nudge = this.nudgeOf(parts[1]);
        if (channel === 'iopub') heardIopub = true;
        else if (channel === 'shell' && nudge) shellAnswered = true;
        else if (channel === 'control' && nudge && control?.id === nudge) control.answered = true;
        check();
        if (!nudge) deliver(encodeV1(channel, parts));
      });
    }
    const ask = (again: boolean) => {
      this.queue(this.sockets.shell, this.request('kernel_info_request').parts);
      if (!again || shellAnswered) return;
      const request = this.request('kernel_info_request');
      control = { id: request.id, answered: false };
      this.queue(this.sockets.control, request.parts);
    };
    ask(false);
    const retry = setInterval(() => ask(true), NUDGE_INTERVAL_MS);
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        done,
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('The kernel did not answer on ZMQ')), timeoutMs);
        }),
      ]);
    } finally {
      clearInterval(retry);
      clearTimeout(timer);
    }
  }

  /** The id of the nudge `parent` (a message's parent header) answers, if it answers one. */
  private nudgeOf(parent: Buffer): string | undefined {
    for (const id of this.nudges) if (parent.includes(id)) return id;
    return undefined;
  }

  private async receive(channel: Channel, onMessage: (parts: Buffer[]) => void): Promise<void> {
    try {
      for await (const frames of this.sockets[channel]) {
        const start = frames.findIndex((frame) => frame.equals(DELIMITER));
        // header, parent header, metadata, content, buffers: after the identities and the signature.
        if (start < 0 || frames.length < start + 6) continue;
        try {
          onMessage(frames.slice(start + 2));
        } catch (err) {
          // A listener that throws (@jupyterlab/services throws on a message it cannot validate) loses that
          // message only, as with a WebSocket; ending the loop would lose every later one (a run never ends).
          if (!this.reportedListenerError) console.error(`Kiln: a kernel message on ${channel} was dropped:`, err);
          this.reportedListenerError = true;
        }
      }
    } catch (err) {
      // Closing the socket ends the loop this way; anything else leaves this channel deaf, so it is said.
      if (!this.closed) console.error(`Kiln: stopped receiving kernel messages on ${channel}:`, err);
    }
  }

  private request(msgType: string): { id: string; parts: Buffer[] } {
    const msgId = randomUUID();
    this.nudges.add(msgId);
    const header = {
      msg_id: msgId,
      msg_type: msgType,
      username: 'kiln',
      session: this.session,
      date: new Date().toISOString(),
      version: '5.3',
    };
    return { id: msgId, parts: [JSON.stringify(header), '{}', '{}', '{}'].map((part) => Buffer.from(part)) };
  }

  /** One send at a time per socket (zeromq refuses a second while the first waits), in order. */
  private queue(socket: Zmq.Dealer, parts: Buffer[]): void {
    if (this.closed) return;
    const frames = [DELIMITER, this.sign(parts), ...parts];
    const previous = this.sending.get(socket) ?? Promise.resolve();
    // expected: the socket is closing (the kernel stopped): its frames have nowhere to go, and the connection reports the end
    const next = previous.then(() => (this.closed ? undefined : socket.send(frames))).catch(() => undefined);
    this.sending.set(socket, next);
  }

  private sign(parts: Buffer[]): string {
    if (!this.info.key) return '';
    const hmac = createHmac('sha256', this.info.key);
    for (const part of parts.slice(0, 4)) hmac.update(part);
    return hmac.digest('hex');
  }
}

let zmqModule: Promise<typeof Zmq> | null = null;
function loadZmq(): Promise<typeof Zmq> {
  zmqModule ??= import('zeromq');
  return zmqModule;
}

const IOPUB = Buffer.from('iopub');
const STATUS_TYPE = Buffer.from('"status"');
const SERVER_STATE_WORDS = [...SERVER_STATUSES].map((state) => Buffer.from(`"${state}"`));

/**
 * True for a v1 frame that carries a status only the server can give (see SERVER_STATUSES). Every kernel message
 * the server relays passes here while ZMQ carries the kernel's own, so only the channel and the header are looked
 * at (in place) until the frame is an IOPub status.
 */
export function isServerStatus(frame: ArrayBuffer): boolean {
  if (frame.byteLength < 32) return false;
  const view = new DataView(frame);
  // The offsets: the channel name's start, then where the channel and the header end (decodeV1 reads them all).
  if (Number(view.getBigUint64(0, true)) < 3) return false;
  const channelStart = Number(view.getBigUint64(8, true));
  const headerStart = Number(view.getBigUint64(16, true));
  const headerEnd = Number(view.getBigUint64(24, true));
  if (!(channelStart <= headerStart && headerStart <= headerEnd && headerEnd <= frame.byteLength)) return false;
  if (!IOPUB.equals(Buffer.from(frame, channelStart, headerStart - channelStart))) return false;
  if (!Buffer.from(frame, headerStart, headerEnd - headerStart).includes(STATUS_TYPE)) return false;
  try {
    // A frame whose offsets do not add up throws here: it is no status Kiln can act on.
    const { parts } = decodeV1(frame);
    // The kernel's own busy and idle (nearly every status) end here, unparsed.
    if (!SERVER_STATE_WORDS.some((word) => parts[3]?.includes(word))) return false;
    const header = JSON.parse(parts[0]!.toString('utf8')) as { msg_type?: string };
    if (header.msg_type !== 'status') return false;
    const content = JSON.parse(parts[3]!.toString('utf8')) as { execution_state?: string };
    return SERVER_STATUSES.has(content.execution_state ?? '');
  } catch {
    return false;
  }
}

/**
 * The v1 kernel WebSocket frame: the number of offsets, the offsets (64-bit little-endian, from the frame's
 * start: the channel name's start, then where each of the channel and the message's parts ends), then the
 * channel name and the parts back to back.
 */
export function decodeV1(frame: ArrayBuffer): { channel: string; parts: Buffer[] } {
  const view = new DataView(frame);
  const count = Number(view.getBigUint64(0, true));
  const offsets: number[] = [];
  for (let i = 1; i <= count; i++) offsets.push(Number(view.getBigUint64(8 * i, true)));
  const slice = (i: number) => Buffer.from(frame, offsets[i], offsets[i + 1] - offsets[i]);
  const parts: Buffer[] = [];
  for (let i = 1; i < count - 1; i++) parts.push(slice(i));
  return { channel: slice(0).toString('utf8'), parts };
}

export function encodeV1(channel: string, parts: Buffer[]): ArrayBuffer {
  const pieces = [Buffer.from(channel), ...parts];
  const count = pieces.length + 1;
  let offset = 8 * (count + 1);
  const frame = new ArrayBuffer(offset + pieces.reduce((sum, piece) => sum + piece.length, 0));
  const view = new DataView(frame);
  const bytes = new Uint8Array(frame);
  view.setBigUint64(0, BigInt(count), true);
  view.setBigUint64(8, BigInt(offset), true);
  pieces.forEach((piece, i) => {
    bytes.set(piece, offset);
    offset += piece.length;
    view.setBigUint64(8 * (i + 2), BigInt(offset), true);
  });
  return frame;
}

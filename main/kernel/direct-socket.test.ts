import { ServerConnection, type KernelMessage } from '@jupyterlab/services';
import { describe, expect, it } from 'vitest';
import { decodeV1, encodeV1, isServerStatus, V1_PROTOCOL } from './direct-socket';

const { serializer } = ServerConnection.makeSettings();

const message = {
  channel: 'shell',
  header: { msg_id: 'm1', msg_type: 'execute_request', session: 's', username: 'u', date: '', version: '5.3' },
  parent_header: {},
  metadata: { ünïcode: '✓' },
  content: { code: '1+1' },
  buffers: [new Uint8Array([0, 255, 7]).buffer],
} as unknown as KernelMessage.IMessage;

describe('v1 kernel frames', () => {
  it('reads the frames @jupyterlab/services writes, and writes frames it reads back as the same message', () => {
    const { channel, parts } = decodeV1(serializer.serialize(message, V1_PROTOCOL) as ArrayBuffer);
    expect(channel).toBe('shell');
    expect(parts.slice(0, 4).map((part) => JSON.parse(part.toString('utf8')))).toEqual([
      message.header,
      message.parent_header,
      message.metadata,
      message.content,
    ]);
    expect([...parts[4]]).toEqual([0, 255, 7]);

    const back = serializer.deserialize(encodeV1('iopub', parts), V1_PROTOCOL);
    expect(back.channel).toBe('iopub');
    expect(back.header).toEqual(message.header);
    expect(back.metadata).toEqual(message.metadata);
    expect(back.content).toEqual(message.content);
    expect([...new Uint8Array((back.buffers![0] as DataView).buffer)]).toEqual([0, 255, 7]);
  });
});

describe("the statuses Kiln keeps from the server's socket", () => {
  const frame = (channel: string, msgType: string, content: Record<string, unknown>) =>
    serializer.serialize(
      {
        ...message,
        channel,
        header: { ...message.header, msg_type: msgType },
        content,
        buffers: [],
      } as unknown as KernelMessage.IMessage,
      V1_PROTOCOL,
    ) as ArrayBuffer;

  it('keeps restarting, autorestarting and dead, which only the server says', () => {
    for (const state of ['restarting', 'autorestarting', 'dead'])
      expect(isServerStatus(frame('iopub', 'status', { execution_state: state }))).toBe(true);
  });

  it("drops the kernel's own messages: its busy and idle, outputs, replies, and anything it cannot read", () => {
    expect(isServerStatus(frame('iopub', 'status', { execution_state: 'busy' }))).toBe(false);
    expect(isServerStatus(frame('iopub', 'status', { execution_state: 'idle' }))).toBe(false);
    expect(isServerStatus(frame('iopub', 'execute_result', { data: { 'text/plain': '"status"' } }))).toBe(false);
    expect(isServerStatus(frame('shell', 'status', { execution_state: 'dead' }))).toBe(false);
    expect(isServerStatus(new ArrayBuffer(8))).toBe(false);
    const scrambled = frame('iopub', 'status', { execution_state: 'dead' });
    new DataView(scrambled).setBigUint64(24, 1n << 40n, true);
    expect(isServerStatus(scrambled)).toBe(false);
    const cut = frame('iopub', 'status', { execution_state: 'dead' });
    new DataView(cut).setBigUint64(40, 1n << 40n, true);
    expect(isServerStatus(cut)).toBe(false);
  });
});

import { ServerConnection, type KernelMessage } from '@jupyterlab/services';
import { describe, expect, it } from 'vitest';
import { decodeV1, encodeV1, V1_PROTOCOL } from './direct-socket';

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

import { describe, expect, it } from 'vitest';
import { EVENT_CHANNELS, REQUEST_CHANNELS, events, requests } from '../shared/contract';
import { createPreloadApi, type IpcLike } from './api';

function fakeIpc() {
  const invoked: string[] = [];
  const listening = new Map<string, Array<(event: unknown, payload: unknown) => void>>();
  const ipc: IpcLike = {
    invoke: async (channel) => {
      invoked.push(channel);
      return { ok: true, value: channel };
    },
    on: (channel, listener) => listening.set(channel, [...(listening.get(channel) ?? []), listener]),
    removeListener: (channel, listener) =>
      listening.set(
        channel,
        (listening.get(channel) ?? []).filter((l) => l !== listener),
      ),
  };
  return { ipc, invoked, listening };
}

describe('preload bridge', () => {
  it("exposes exactly request and on, and forwards exactly the contract's request channels", async () => {
    const { ipc, invoked } = fakeIpc();
    const api = createPreloadApi(ipc);
    expect(Object.keys(api).sort()).toEqual(['on', 'request']);
    expect([...REQUEST_CHANNELS].sort()).toEqual(Object.keys(requests).sort());
    for (const channel of REQUEST_CHANNELS) await api.request(channel, {});
    expect(invoked).toEqual(REQUEST_CHANNELS);
    for (const channel of [
      '',
      'ELECTRON_BROWSER_REQUIRE',
      '__proto__',
      'constructor',
      'workspace.list ',
      'WORKSPACE.LIST',
      'trust.set.x',
    ]) {
      expect(await api.request(channel, {}), channel).toMatchObject({ ok: false, error: { code: 'E_BAD_REQUEST' } });
    }
    expect(invoked).toHaveLength(REQUEST_CHANNELS.length);
  });

  it("subscribes to exactly the contract's event channels, and unsubscribes", () => {
    const { ipc, listening } = fakeIpc();
    const api = createPreloadApi(ipc);
    expect([...EVENT_CHANNELS].sort()).toEqual(Object.keys(events).sort());
    const seen: unknown[] = [];
    const off = api.on('trust.changed', (payload) => seen.push(payload));
    listening.get('trust.changed')![0]({ sender: 'ipc' }, { trusted: true, withheld: [] });
    expect(seen).toEqual([{ trusted: true, withheld: [] }]);
    off();
    expect(listening.get('trust.changed')).toEqual([]);
    for (const channel of EVENT_CHANNELS) api.on(channel, () => undefined)();
    for (const channel of ['ELECTRON_BROWSER_REQUIRE', '__proto__', '', 'workspace.list']) {
      expect(() => api.on(channel, () => undefined), channel).toThrow(/Unknown event/);
    }
  });
});

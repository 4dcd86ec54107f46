import { describe, expect, it } from 'vitest';
import type { RequestArgs, RequestResult } from '../shared/contract';
import { KilnError } from '../shared/errors';
import { FakeBridge } from './fake-bridge';

describe('FakeBridge', () => {
  it('answers from the handler the test gave, with the args as main would parse them', async () => {
    const bridge = new FakeBridge().handle('workspace.stat', ({ path }) => ({
      name: path,
      path,
      kind: 'file',
      size: 1,
      mtimeMs: 0,
      hidden: false,
    }));
    await expect(bridge.request('workspace.stat', { path: 'a.txt' })).resolves.toMatchObject({ path: 'a.txt' });
    expect(bridge.sentOn('workspace.stat')).toEqual([{ path: 'a.txt' }]);
  });

  it('holds both sides to the contract: bad args fail as main fails them, a bad result or payload is a test bug', async () => {
    const bridge = new FakeBridge().handle(
      'workspace.read',
      () => ({ nonsense: true }) as unknown as RequestResult<'workspace.read'>,
    );
    await expect(
      bridge.request('workspace.read', { path: 42 } as unknown as RequestArgs<'workspace.read'>),
    ).rejects.toMatchObject({ code: 'E_BAD_REQUEST' });
    await expect(bridge.request('workspace.read', { path: 'a.txt' })).rejects.toThrow(/contract refuses/);
    await expect(bridge.request('workspace.list', { path: '' } as RequestArgs<'workspace.list'>)).rejects.toThrow(
      /no handler for workspace.list/,
    );
    expect(() => bridge.emit('fs.change', { type: 'updated', path: 'a.txt' } as never)).toThrow(/contract refuses/);
  });

  it('passes a KilnError through with its code, and stops delivering to a listener that left', async () => {
    const bridge = new FakeBridge().handle('workspace.read', () => {
      throw new KilnError('E_NOT_FOUND', 'gone');
    });
    await expect(bridge.request('workspace.read', { path: 'a.txt' })).rejects.toMatchObject({
      code: 'E_NOT_FOUND',
      message: 'gone',
    });
    const seen: string[] = [];
    const off = bridge.on('fs.change', (change) => seen.push(change.type));
    bridge.emit('fs.change', { type: 'deleted', path: 'a.txt', isDir: false, origin: 'external' });
    off();
    bridge.emit('fs.change', { type: 'deleted', path: 'b.txt', isDir: false, origin: 'external' });
    expect(seen).toEqual(['deleted']);
    expect(bridge.listenerCount('fs.change')).toBe(0);
  });
});

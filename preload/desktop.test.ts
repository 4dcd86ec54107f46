import { describe, expect, it } from 'vitest';
import { DESKTOP_CHANNELS } from '../shared/desktop';
import { createDesktopApi } from './desktop';

describe('preload desktop API', () => {
  it('sends only strings on its own channels, the drag without waiting', async () => {
    const sent: unknown[][] = [];
    const api = createDesktopApi(
      {
        send: (...args) => void sent.push(args),
        invoke: async (...args) => {
          sent.push(args);
          return { opened: true };
        },
      },
      () => {
        throw new Error('not a file from the OS');
      },
    );
    api.startDrag(['a.txt', 3 as never, 'src']);
    await api.reveal('a.txt');
    expect(await api.openWithSystem('a.txt')).toEqual({ opened: true });
    expect(sent).toEqual([
      [DESKTOP_CHANNELS.startDrag, ['a.txt', 'src']],
      [DESKTOP_CHANNELS.reveal, 'a.txt'],
      [DESKTOP_CHANNELS.openWithSystem, 'a.txt'],
    ]);
    expect(api.pathForFile({})).toBe('');
  });
});

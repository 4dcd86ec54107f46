/**
 * The upload job's decisions over the fake bridge, for the desktop app's path (real paths, copied in main): which
 * clashes are asked about, what "for all" answers for the rest, and what main is told. The web host's path runs
 * end to end in e2e/upload.spec.ts.
 */
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import type { RequestArgs } from '../../../shared/contract';
import { KilnError } from '../../../shared/errors';
import { FakeBridge } from '../../../test-support/fake-bridge';
import type { Toasts } from '../ui';
import type { IncomingItem } from './incoming';
import { UploadStore } from './upload-store';

const byPath = (name: string): IncomingItem => ({ name, isDir: false, files: [], dirs: [], source: `/home/o/${name}` });

function setup(existing: string[]) {
  const copied: RequestArgs<'upload.copyIn'>[] = [];
  const bridge = new FakeBridge()
    .handle('workspace.stat', ({ path }) => {
      if (!existing.includes(path)) throw new KilnError('E_NOT_FOUND', `"${path}" does not exist`);
      return { name: path, path, kind: 'file', hidden: false };
    })
    .handle('upload.copyIn', (args) => {
      copied.push(args);
      return { path: `src/${args.source.split('/').pop()}` };
    });
  const asked: string[] = [];
  const toasts: Toasts = { show: () => 0, update: () => undefined, close: () => undefined, error: () => 0 };
  return { store: new UploadStore(bridge), copied, asked, toasts };
}

describe('UploadStore, copying by path', () => {
  it('asks only about clashes; "Keep both for all" answers the rest; the move modifier reaches main', async () => {
    const { store, copied, asked, toasts } = setup(['src/a.txt', 'src/c.txt']);
    const written = await store.bringIn([byPath('a.txt'), byPath('b.txt'), byPath('c.txt')], 'src', {
      toasts,
      move: true,
      ask: async (request) => {
        asked.push(request.title);
        return 'keepAll' as never;
      },
    });
    expect(asked).toEqual(['"a.txt" already exists']);
    expect(copied.map((c) => [c.source, c.onConflict, c.move])).toEqual([
      ['/home/o/a.txt', 'keepBoth', true],
      ['/home/o/b.txt', 'reject', true],
      ['/home/o/c.txt', 'keepBoth', true],
    ]);
    expect(written).toEqual(['src/a.txt', 'src/b.txt', 'src/c.txt']);
    expect(store.getState().job).toBeNull();
  });

  it('a second drop while the first comes in waits its turn instead of being refused', async () => {
    const { store, copied, toasts } = setup([]);
    const ask = async () => 'cancel' as never;
    const [first, second] = await Promise.all([
      store.bringIn([byPath('a.txt')], 'src', { toasts, ask }),
      store.bringIn([byPath('b.txt')], 'src', { toasts, ask }),
    ]);
    expect([first, second]).toEqual([['src/a.txt'], ['src/b.txt']]);
    expect(copied.map((c) => c.source)).toEqual(['/home/o/a.txt', '/home/o/b.txt']);
  });

  it('Cancel in the clash dialog brings nothing in, not even the items without a clash', async () => {
    const { store, copied, toasts } = setup(['src/b.txt']);
    const written = await store.bringIn([byPath('a.txt'), byPath('b.txt')], 'src', {
      toasts,
      ask: async () => 'cancel' as never,
    });
    expect(written).toEqual([]);
    expect(copied).toEqual([]);
  });

  it('Replace overwrites that one and asks again for the next', async () => {
    const { store, copied, asked, toasts } = setup(['src/a.txt', 'src/b.txt']);
    const answers = ['replace', 'keep'];
    await store.bringIn([byPath('a.txt'), byPath('b.txt')], 'src', {
      toasts,
      ask: async (request) => {
        asked.push(request.title);
        return answers.shift() as never;
      },
    });
    expect(asked).toHaveLength(2);
    expect(copied.map((c) => c.onConflict)).toEqual(['overwrite', 'keepBoth']);
  });
});

describe('UploadStore, uploading through the web host', () => {
  it('Replace of a folder brings the new one in beside it, and a failed upload removes that and keeps the old one', async () => {
    const requests: string[] = [];
    const bridge = new FakeBridge()
      .handle('workspace.stat', ({ path }) => ({ name: path, path, kind: 'dir', hidden: false }))
      .handle('workspace.nextFreeName', ({ dir, name }) => ({ path: `${dir}/${name} copy` }))
      .handle('workspace.createDir', ({ path }) => {
        requests.push(`createDir ${path}`);
        return { name: path, path, kind: 'dir', hidden: false };
      })
      .handle('workspace.delete', ({ path, permanent }) => {
        requests.push(`delete ${path} ${permanent}`);
        return { trashed: false };
      })
      .handle('workspace.move', ({ from, to }) => {
        requests.push(`move ${from} ${to}`);
        return { path: to };
      });
    // The connection breaks under the first file's upload.
    class BrokenXhr {
      upload = {};
      onerror: (() => void) | null = null;
      open(): void {}
      send(): void {
        queueMicrotask(() => this.onerror?.());
      }
    }
    vi.stubGlobal('XMLHttpRequest', BrokenXhr);
    onTestFinished(() => void vi.unstubAllGlobals());
    const errors: string[] = [];
    const toasts: Toasts = {
      show: () => 0,
      update: () => undefined,
      close: () => undefined,
      error: (message: string) => (errors.push(message), 0),
    };
    const file = new File(['x'], 'a.txt');
    const item: IncomingItem = { name: 'kit', isDir: true, files: [{ rel: 'kit/a.txt', file }], dirs: ['kit'] };
    const written = await new UploadStore(bridge).bringIn([item], 'src', {
      toasts,
      ask: async () => 'replace' as never,
    });
    expect(written).toEqual([]);
    expect(requests).toEqual(['createDir src/kit copy', 'delete src/kit copy true']);
    expect(errors).toHaveLength(1);
  });
});

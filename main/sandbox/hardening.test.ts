import { afterEach, describe, expect, it } from 'vitest';
import { Verbs } from '../verbs';
import { Workspace } from '../workspace';
import { makeTempDir, makeTempTree } from '../../test-support/temp-workspace';
import { Sandbox } from './sandbox';

/**
 * Agent code under the real bubblewrap, with and without its writes staged in an overlay (the overlay's own mount
 * happens before the restrictions, so it must still work), as the app runs it.
 */
const PROBE = String.raw`
import ctypes, os, subprocess
libc = ctypes.CDLL(None, use_errno=True)
def call(name, *args):
    r = getattr(libc, name)(*args)
    print(name, r, os.strerror(ctypes.get_errno()) if r == -1 else 'ok')
call('ptrace', 0, 0, 0, 0)                     # PTRACE_TRACEME
call('unshare', 0x10000000)                    # CLONE_NEWUSER
call('unshare', 0x00020000)                    # CLONE_NEWNS
call('syscall', 250, 0, -1, 0, 0)              # keyctl(KEYCTL_GET_KEYRING_ID, thread keyring)
call('mount', b'none', b'/tmp', b'tmpfs', 0, None)
call('syscall', 321, 0, 0, 0)                  # bpf
r = subprocess.run(['unshare', '-U', 'true'], capture_output=True, text=True)
print('unshare -U', r.returncode, r.stderr.strip())
print('fds', sorted(int(fd) for fd in os.listdir('/proc/self/fd')))
`;

const ORDINARY = String.raw`
import numpy, pandas, subprocess, threading, os
from multiprocessing import Pool
print('numpy', float(numpy.arange(4).sum()), 'pandas', int(pandas.DataFrame({'a': [1, 2]}).a.sum()))
print('subprocess', subprocess.run(['echo', 'hi'], capture_output=True, text=True).stdout.strip())
out = []
t = threading.Thread(target=lambda: out.append('thread')); t.start(); t.join(); print(out[0])
pid = os.fork()
if pid == 0: os._exit(7)
print('fork', os.waitpid(pid, 0)[1] >> 8)
def square(x): return x * x
if __name__ == '__main__':
    with Pool(2) as pool: print('pool', pool.map(square, [1, 2, 3]))
`;

describe('the restrictions on agent code (real bubblewrap)', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  async function verbsOn(staged: boolean) {
    const tree = await makeTempTree({});
    const data = await makeTempDir();
    const verbs = new Verbs({
      workspace: await Workspace.open({ root: tree.root }),
      python: '/usr/bin/python3',
      sandbox: new Sandbox(),
      ...(staged ? { stageRunWritesIn: data.dir } : {}),
    });
    cleanups.push(() => verbs.dispose(), tree.cleanup, data.cleanup);
    return verbs;
  }

  for (const staged of [true, false]) {
    describe(staged ? 'writes staged in an overlay' : 'writes straight to the workspace', () => {
      it('refuses ptrace, namespaces, keyctl, mount and bpf with EPERM; a nested user namespace too', async () => {
        const verbs = await verbsOn(staged);
        const result = await verbs.call('execute-code', { code: PROBE });
        expect(result.sandboxed).toBe(true);
        expect(result.stderr).toBe('');
        const lines = result.stdout.trim().split('\n');
        expect(lines.slice(0, 6)).toEqual([
          'ptrace -1 Operation not permitted',
          'unshare -1 Operation not permitted',
          'unshare -1 Operation not permitted',
          'syscall -1 Operation not permitted',
          'mount -1 Operation not permitted',
          'syscall -1 Operation not permitted',
        ]);
        expect(lines[6]).toMatch(/^unshare -U 1 unshare: unshare failed: Operation not permitted/);
        // The seccomp program's fd (9) was bwrap's only: the code does not hold it.
        expect(lines[7]).not.toMatch(/\b9\b/);
        if (staged) expect(result.files).toMatchObject({ staged: true });
      });

      it('still runs ordinary data-science code: numpy, pandas, subprocess, threads, fork, a process pool', async () => {
        const verbs = await verbsOn(staged);
        const result = await verbs.call('execute-code', { code: ORDINARY });
        expect(result.stderr).toBe('');
        expect(result.stdout).toBe('numpy 6.0 pandas 3\nsubprocess hi\nthread\nfork 7\npool [1, 4, 9]\n');
      });
    });
  }
});

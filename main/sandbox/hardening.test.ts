import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { KilnError } from '../../shared/errors';
import type { SandboxSettings } from './sandbox';
import { Verbs } from '../verbs';
import { Workspace } from '../workspace';
import { makeTempDir, makeTempTree } from '../../test-support/temp-workspace';
import { Sandbox } from './sandbox';
import { probeSandbox } from './machine';
import { probeDisableUserns, restrictionArgs } from './hardening';
import { processesIn } from '../../test-support/processes';
import { until } from '../../test-support/until';

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

  async function verbsOn(staged: boolean, settings?: SandboxSettings, env?: NodeJS.ProcessEnv, runMs?: number) {
    const tree = await makeTempTree({});
    const data = await makeTempDir();
    const verbs = new Verbs({
      workspace: await Workspace.open({ root: tree.root }),
      python: '/usr/bin/python3',
      sandbox: new Sandbox(env ? { env } : {}),
      ...(settings ? { sandboxSettings: () => settings } : {}),
      ...(staged ? { stageRunWritesIn: data.dir } : {}),
      ...(runMs ? { timeouts: { runMs } } : {}),
    });
    cleanups.push(() => verbs.dispose(), tree.cleanup, data.cleanup);
    return Object.assign(verbs, { root: tree.root });
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

  it('each layer holds on its own: --disable-userns without the filter refuses a nested user namespace', async () => {
    const bwrap = (await probeSandbox()).bwrap!;
    expect(await probeDisableUserns(bwrap)).toBe(true);
    const nested = (flags: string[]) =>
      spawnSync(bwrap, [...flags, '--unshare-user', '--ro-bind', '/', '/', '--', 'unshare', '-U', 'true'], {
        encoding: 'utf8',
      });
    expect(nested([]).status).toBe(0);
    const sealed = nested(restrictionArgs({ disableUserns: true, seccomp: false }));
    expect(sealed.status).not.toBe(0);
    expect(sealed.stderr).toMatch(/No space left on device/);
  });

  describe('the network', () => {
    /** A TCP server on the host's loopback that answers "host" to whoever connects. */
    async function hostServer(): Promise<{ port: number }> {
      const server: Server = createServer((socket) => socket.end('host'));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
      return { port: (server.address() as { port: number }).port };
    }

    /** Tries the host's server at the run's 127.0.0.1 and at its gateway, and serves and reaches its own loopback. */
    const reach = (ports: number[]) => String.raw`
import socket, subprocess
def attempt(host, port):
    try:
        with socket.create_connection((host, port), timeout=3) as s: return s.recv(16).decode() or 'closed'
    except OSError as e: return type(e).__name__
gw = subprocess.run(['ip', 'route'], capture_output=True, text=True).stdout.split()
gateway = gw[gw.index('via') + 1] if 'via' in gw else None
for port in ${JSON.stringify(ports)}:
    print(port, attempt('127.0.0.1', port), attempt(gateway, port) if gateway else 'no gateway')
own = socket.socket(); own.bind(('127.0.0.1', 0)); own.listen()
with socket.create_connection(own.getsockname(), timeout=3): print('own loopback', 'ok')
`;

    for (const staged of [true, false]) {
      it(`network: true reaches out, but not the host's loopback services (${staged ? 'staged' : 'direct'})`, async () => {
        const { port } = await hostServer();
        const verbs = await verbsOn(staged, { network: true, env: [] });
        const result = await verbs.call('execute-code', { code: reach([port]) });
        expect(
          result.stderr.split('\n').filter((line) => !/uid_map|user mappings|ping_group_range/.test(line)),
        ).toEqual(['']);
        const [line, own] = result.stdout.trim().split('\n');
        expect(line).toMatch(new RegExp(`^${port} ConnectionRefusedError (?!host)`));
        expect(own).toBe('own loopback ok');
        // The run has an interface of its own with a route out (not only loopback).
        const route = await verbs.call('execute-code', {
          code: 'import socket\nprint([n for _, n in socket.if_nameindex()] != ["lo"])',
        });
        expect(route.stdout).toBe('True\n');
      });
    }

    it('reaches the host ports sandbox.host_ports names, and only those', async () => {
      const named = await hostServer();
      const other = await hostServer();
      const verbs = await verbsOn(true, { network: true, env: [], hostPorts: [named.port] });
      const result = await verbs.call('execute-code', { code: reach([named.port, other.port]) });
      const lines = result.stdout.trim().split('\n');
      expect(lines[0]).toMatch(new RegExp(`^${named.port} host `));
      expect(lines[1]).toMatch(new RegExp(`^${other.port} ConnectionRefusedError (?!host)`));
    });

    it('a run stopped by its time limit takes its pasta along', async () => {
      const pastas = () =>
        readdirSync('/proc').filter((pid) => {
          try {
            return /^\d+$/.test(pid) && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--no-map-gw');
          } catch {
            return false;
          }
        });
      const before = new Set(pastas());
      const verbs = await verbsOn(true, { network: true, env: [] }, undefined, 4000);
      const result = await verbs.call('execute-code', { code: 'import time\nprint("up", flush=True)\ntime.sleep(60)' });
      expect(result).toMatchObject({ stdout: 'up\n', limit: 'time' });
      await until(
        () => processesIn(verbs.root).length === 0 && pastas().every((pid) => before.has(pid)),
        "the run's processes and its pasta to be gone",
      );
    });

    it('never starts the code when pasta fails to set up the network', async () => {
      const bin = await makeTempDir();
      cleanups.push(bin.cleanup);
      await writeFile(path.join(bin.dir, 'pasta'), '#!/bin/sh\necho "pasta: no tap for you" >&2\nexit 1\n', {
        mode: 0o755,
      });
      const env = { ...process.env, PATH: `${bin.dir}:${process.env.PATH}` };
      const verbs = await verbsOn(true, { network: true, env: [] }, env);
      const result = await verbs.call('execute-code', { code: 'print("ran")\nopen("ran.txt", "w")' });
      expect(result.stdout).toBe('');
      expect(result.returncode).toBe(125);
      expect(result.stderr).toContain("pasta: no tap for you\nkiln: the run's network (pasta) did not start");
      expect(existsSync(path.join(verbs.root, 'ran.txt'))).toBe(false);
    });

    it('is refused, saying what to install, where pasta is missing', async () => {
      const verbs = await verbsOn(true, { network: true, env: [] }, { ...process.env, PATH: '/nonexistent' });
      const error = await verbs.call('execute-code', { code: 'print(1)' }).catch((err: unknown) => err);
      expect(error).toBeInstanceOf(KilnError);
      expect((error as KilnError).code).toBe('E_NO_SANDBOX');
      expect((error as KilnError).message).toMatch(/apt-get install passt/);
    });

    it('without network: true stays its own loopback only, as before', async () => {
      const { port } = await hostServer();
      const verbs = await verbsOn(true);
      const result = await verbs.call('execute-code', {
        code: 'import socket\nprint([n for _, n in socket.if_nameindex()])\n' + reach([port]),
      });
      expect(result.stdout).toBe(`['lo']\n${port} ConnectionRefusedError no gateway\nown loopback ok\n`);
    });
  });
});

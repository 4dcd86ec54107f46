import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, rmdirSync, statSync, utimesSync } from 'node:fs';
import { symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KilnError } from '../../shared/errors';
import { Verbs } from '../verbs';
import { Workspace } from '../workspace';
import { makeTempDir, makeTempTree } from '../../test-support/temp-workspace';
import { FORK_BOMB_PY, processesIn } from '../../test-support/processes';
import { until } from '../../test-support/until';
import { RUN_CGROUP_PREFIX } from './pids-cgroup';
import { buildBwrapArgs, type SandboxPlan } from './bwrap-args';
import { sandboxEnv } from './env';
import { classifyLimit, limitMessage } from './limits';
import { interpreterPaths, maskTargets, probeSandbox } from './machine';
import { defaultHomes, ProtectedPaths } from '../protected-paths';
import { sandboxProfile } from './profile';
import { Sandbox } from './sandbox';

const GiB = 1024 ** 3;

describe('on this machine', () => {
  it('bubblewrap is installed and unprivileged user namespaces work', async () => {
    expect(await probeSandbox()).toEqual({ available: true, bwrap: expect.stringMatching(/bwrap$/), reason: '' });
  });

  it('says why when there is no sandbox', async () => {
    expect(await probeSandbox({ ...process.env, KILN_BWRAP: 'none' })).toMatchObject({ available: false });
    const missing = await probeSandbox({ ...process.env, KILN_BWRAP: '/nonexistent/bwrap' });
    expect(missing).toMatchObject({ available: false, reason: expect.stringContaining('apt-get install bubblewrap') });
  });

  it('makes an interpreter under $HOME (a pyenv build) visible read-only, and adds nothing for the system one', async () => {
    expect(await interpreterPaths('/usr/bin/python3')).toEqual([]);
    const pyenv = path.join(os.homedir(), '.pyenv/versions/3.12.1/bin/python3.12');
    if (!existsSync(pyenv)) return;
    expect(await interpreterPaths(pyenv)).toEqual([path.join(os.homedir(), '.pyenv/versions/3.12.1')]);
    const tree = await makeTempTree({});
    const verbs = new Verbs({ workspace: await Workspace.open({ root: tree.root }), python: pyenv });
    try {
      const result = await verbs.call('execute-code', {
        code: 'import os, sys, json\nprint(sys.version_info[:2], os.listdir(os.path.expanduser("~")))\nopen(os.path.join(sys.prefix, "pwned"), "w")',
      });
      expect(result.sandboxed).toBe(true);
      expect(result.stdout).toBe("(3, 12) ['.pyenv']\n");
      expect(result.stderr).toContain('Read-only file system');
      expect(existsSync(path.join(os.homedir(), '.pyenv/versions/3.12.1/pwned'))).toBe(false);
    } finally {
      await verbs.dispose();
      await tree.cleanup();
    }
  });
});

describe('bubblewrap arguments', () => {
  const plan: SandboxPlan = {
    workspaceRoot: '/home/op/project',
    readOnlyInWorkspace: ['/home/op/project/scripts'],
    placeholders: ['/home/op/project/.kiln'],
    home: '/home/op',
    system: [
      { path: '/usr', kind: 'dir' },
      { path: '/bin', kind: 'symlink', target: 'usr/bin' },
      { path: '/etc', kind: 'dir' },
    ],
    hiddenFiles: ['/etc/shadow'],
    hiddenDirs: ['/etc/ssh'],
    extraReadOnly: ['/home/op/.pyenv/versions/3.12.1', '/home/op/project/.venv'],
    maskedFiles: [],
    maskedDirs: [],
    network: false,
    env: { PATH: '/usr/bin', HOME: '/home/op' },
    cwd: '/home/op/project',
  };

  it('hides home and secrets before binding the interpreter and the workspace inside them', () => {
    const args = buildBwrapArgs(plan).join(' ');
    expect(args).toMatch(
      /^--unshare-user --unshare-pid --unshare-ipc --unshare-uts --unshare-cgroup-try --unshare-net --die-with-parent/,
    );
    expect(args).toContain('--symlink usr/bin /bin');
    expect(args).toContain('--ro-bind /dev/null /etc/shadow');
    expect(args).toContain('--tmpfs /etc/ssh --remount-ro /etc/ssh');
    const order = [
      '--tmpfs /tmp',
      '--tmpfs /home/op',
      '--ro-bind /home/op/.pyenv',
      '--bind /home/op/project',
      '--ro-bind /home/op/project/scripts',
      // Not there yet: an empty read-only folder in its place, so the code cannot make it.
      '--tmpfs /home/op/project/.kiln --remount-ro /home/op/project/.kiln',
    ];
    const at = order.map((part) => args.indexOf(part));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    // A venv inside the workspace is the workspace's: not bound twice.
    expect(args).not.toContain('--ro-bind /home/op/project/.venv');
    expect(args).toMatch(/--chdir \/home\/op\/project --clearenv --setenv PATH \/usr\/bin --setenv HOME \/home\/op$/);
  });

  it('masks secrets inside the workspace after every bind, so none uncovers them', () => {
    const args = buildBwrapArgs({
      ...plan,
      workspaceRoot: '/home/op',
      readOnlyInWorkspace: ['/home/op/scripts'],
      maskedFiles: ['/home/op/.netrc'],
      maskedDirs: ['/home/op/.ssh'],
    }).join(' ');
    const order = ['--bind /home/op /home/op', '--ro-bind /home/op/scripts', '--ro-bind /dev/null /home/op/.netrc'];
    order.push('--tmpfs /home/op/.ssh --remount-ro /home/op/.ssh', '--chdir');
    const at = order.map((part) => args.indexOf(part));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
  });

  it('shares the network only when the trusted config asks', () => {
    expect(buildBwrapArgs({ ...plan, network: true })).toContain('--share-net');
    expect(buildBwrapArgs(plan)).not.toContain('--share-net');
  });
});

describe('the environment of a run', () => {
  it('keeps the allowlist and the names the config lists, and nothing else', () => {
    const env = sandboxEnv(
      {
        PATH: '/usr/bin',
        LANG: 'C.UTF-8',
        LC_ALL: 'C.UTF-8',
        OPENAI_API_KEY: 'sk-secret',
        JUPYTER_TOKEN: 't',
        HF_HOME: '/data/hf',
        SSH_AUTH_SOCK: '/run/agent',
      },
      { extraNames: ['HF_HOME'], set: { HOME: '/home/op' } },
    );
    expect(env).toEqual({
      PATH: '/usr/bin',
      LANG: 'C.UTF-8',
      LC_ALL: 'C.UTF-8',
      HF_HOME: '/data/hf',
      HOME: '/home/op',
    });
  });
});

describe('profiles and limits', () => {
  it('default: 60 s, 4 GiB at most half the machine, 256 processes; heavy: 600 s and most of the memory', () => {
    expect(sandboxProfile(false, { totalMemoryBytes: 32 * GiB })).toEqual({
      name: 'default',
      timeMs: 60_000,
      memoryBytes: 4 * GiB,
      processes: 256,
    });
    expect(sandboxProfile(false, { totalMemoryBytes: 4 * GiB }).memoryBytes).toBe(2 * GiB);
    expect(sandboxProfile(true, { totalMemoryBytes: 10 * GiB })).toEqual({
      name: 'heavy',
      timeMs: 600_000,
      memoryBytes: 9 * GiB,
      processes: 4096,
    });
  });

  it('names the limit a run hit, time first', () => {
    const ended = { timedOut: false, returncode: 1, stderr: '', pidsMaxHit: null };
    expect(classifyLimit({ ...ended, timedOut: true, stderr: 'MemoryError' })).toBe('time');
    expect(classifyLimit({ ...ended, stderr: 'Traceback...\nMemoryError\n' })).toBe('memory');
    expect(classifyLimit({ ...ended, stderr: 'BlockingIOError: [Errno 11] Resource temporarily unavailable' })).toBe(
      'processes',
    );
    expect(classifyLimit({ ...ended, pidsMaxHit: true, returncode: 0 })).toBe('processes');
    expect(classifyLimit({ ...ended, stderr: 'ValueError: boom' })).toBeNull();
    expect(classifyLimit({ ...ended, returncode: 0, stderr: 'MemoryError' })).toBeNull();
    const heavy = sandboxProfile(true, { totalMemoryBytes: 10 * GiB });
    expect(limitMessage('memory', heavy)).toBe('Memory limit of 9 GiB reached: an allocation was refused.');
  });
});

describe('a workspace that is, or holds, the home folder', () => {
  const SECRET = `kiln-home-canary-${process.pid}`;
  const PROBE = [
    'import json, os',
    'home = os.environ["HOME"]',
    'out = {}',
    'for rel in [".ssh/id_rsa", ".config/gcloud/credentials.db", ".netrc", ".local/share/keyrings/login.keyring", "kiln-data/trust.json", "linked-key", ".cache/huggingface/token", ".local/share/jupyter/runtime/kernel-1.json", ".never-heard-of/key"]:',
    '    try:',
    '        out[rel] = open(os.path.join(home, rel)).read()',
    '    except OSError as err:',
    '        out[rel] = type(err).__name__',
    'try:',
    '    open(os.path.join(home, ".ssh/authorized_keys"), "a").write("attacker")',
    '    out["write"] = "written"',
    'except OSError as err:',
    '    out["write"] = type(err).__name__',
    'out["ssh"] = os.listdir(os.path.join(home, ".ssh"))',
    'out["notes"] = open(os.path.join(home, "notes/todo.txt")).read()',
    'print(json.dumps(out))',
  ].join('\n');

  it('masks every hidden entry of each home a workspace holds, known or not, and none for a workspace inside a home', async () => {
    const tree = await makeTempTree({
      'alice/.ssh/id_ed25519': 'key',
      'alice/notes.txt': 'mine',
      'bob/.aws/credentials': 'key',
      'bob/.netrc': 'key',
      'bob/.never-heard-of/token': 'key',
      'bob/work/x.py': '',
    });
    try {
      const homes = [path.join(tree.root, 'alice'), path.join(tree.root, 'bob'), '/nonexistent'];
      const whole = await ProtectedPaths.create({ root: tree.root, homes });
      const masked = await maskTargets(tree.root, await whole.maskedEntries(), []);
      expect(masked.dirs.sort()).toEqual(
        ['alice/.ssh', 'bob/.aws', 'bob/.never-heard-of'].map((rel) => path.join(tree.root, rel)),
      );
      expect(masked.files).toEqual([path.join(tree.root, 'bob/.netrc')]);
      // A hidden entry that holds what the run needs (the interpreter in ~/.pyenv) is left.
      expect((await maskTargets(tree.root, ['bob/.aws'], [path.join(tree.root, 'bob/.aws/v')])).dirs).toEqual([]);
      const inside = await ProtectedPaths.create({ root: path.join(tree.root, 'bob/work'), homes });
      expect(await inside.maskedEntries()).toEqual([]);
      expect(await defaultHomes()).toContain(os.userInfo().homedir);
    } finally {
      await tree.cleanup();
    }
  });

  it.each([
    ['is the home', 'op'],
    ['holds the home', ''],
  ])('shows no secret of the home when the workspace %s (bubblewrap, for real)', async (_, workspaceRel) => {
    const tree = await makeTempTree({
      'op/.ssh/id_rsa': SECRET,
      'op/.config/gcloud/credentials.db': SECRET,
      'op/.netrc': SECRET,
      'op/.local/share/keyrings/login.keyring': SECRET,
      'op/.cache/huggingface/token': SECRET,
      'op/.local/share/jupyter/runtime/kernel-1.json': SECRET,
      'op/.never-heard-of/key': SECRET,
      'op/kiln-data/trust.json': SECRET,
      'op/notes/todo.txt': 'mine',
    });
    const home = path.join(tree.root, 'op');
    await symlink(path.join(home, '.ssh/id_rsa'), path.join(home, 'linked-key'));
    const verbs = new Verbs({
      workspace: await Workspace.open({ root: path.join(tree.root, workspaceRel) }),
      python: '/usr/bin/python3',
      env: { ...process.env, HOME: home },
      privateDirs: [path.join(home, 'kiln-data')],
    });
    try {
      const result = await verbs.call('execute-code', { code: PROBE });
      expect(result).toMatchObject({ sandboxed: true, returncode: 0 });
      expect(result.stdout + result.stderr).not.toContain(SECRET);
      const seen = JSON.parse(result.stdout) as Record<string, unknown>;
      expect(seen).toMatchObject({
        '.ssh/id_rsa': 'FileNotFoundError',
        '.config/gcloud/credentials.db': 'FileNotFoundError',
        '.local/share/keyrings/login.keyring': 'FileNotFoundError',
        'kiln-data/trust.json': 'FileNotFoundError',
        'linked-key': 'FileNotFoundError',
        '.cache/huggingface/token': 'FileNotFoundError',
        '.local/share/jupyter/runtime/kernel-1.json': 'FileNotFoundError',
        '.never-heard-of/key': 'FileNotFoundError',
        ssh: [],
        notes: 'mine',
      });
      // A secret file is shown as /dev/null, which the sandbox's user may not even open.
      expect(['', 'PermissionError']).toContain(seen['.netrc']);
      // A planted key lands nowhere: the masked folder is read-only, and the real one is untouched.
      expect(seen.write).toMatch(/OSError|PermissionError/);
      expect(existsSync(path.join(home, '.ssh/authorized_keys'))).toBe(false);
      expect(readFileSync(path.join(home, '.ssh/id_rsa'), 'utf8')).toBe(SECRET);
    } finally {
      await verbs.dispose();
      await tree.cleanup();
    }
  });
});

describe('the process cap of a caller that is not root (RLIMIT_NPROC)', () => {
  const REPO = path.resolve(import.meta.dirname, '../..');
  const NOBODY = 65534;
  const asRoot = process.getuid?.() === 0;
  const setpriv = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => existsSync(p));
  // Root is not held by RLIMIT_NPROC (its runs get a pids cgroup): the cap is tried as nobody, through setpriv.
  const title = asRoot
    ? setpriv
      ? 'stops a fork bomb of agent code run by nobody (setpriv) at the profile’s process cap, and leaves nothing running'
      : 'SKIPPED: running as root without setpriv (util-linux), so the cap of a non-root caller cannot be tried'
    : 'stops a fork bomb of agent code at the profile’s process cap, and leaves nothing running';

  it.skipIf(asRoot && !setpriv)(
    title,
    async () => {
      const tree = await makeTempTree({});
      try {
        let command = process.execPath;
        let args = ['--import', 'tsx', path.join(REPO, 'test-support/sandbox-run.ts'), tree.root];
        // nobody must reach the checkout to run it: CI clones into a 0700 temp folder, so its ancestors get
        // search permission (not listing) for the length of the test.
        const opened = asRoot ? openToOthers(REPO) : [];
        if (asRoot) {
          chownSync(tree.root, NOBODY, NOBODY);
          args = [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', command, ...args];
          command = setpriv!;
        }
        const child = spawnSync(command, args, {
          cwd: REPO,
          input: FORK_BOMB_PY,
          encoding: 'utf8',
          env: { ...process.env, HOME: tree.root },
          timeout: 120_000,
        });
        for (const { dir, mode } of opened) chmodSync(dir, mode);
        expect(child.status, child.stderr).toBe(0);
        const { uid, result } = JSON.parse(child.stdout) as { uid: number; result: Record<string, unknown> };
        expect(uid).not.toBe(0);
        expect(result.stdout).not.toContain('forked them all');
        expect(result).toMatchObject({ sandboxed: true, limit: 'processes' });
        expect(result.returncode).not.toBe(0);
        expect(result.limit_message).toMatch(/^Process limit of 256 processes and threads reached/);
        await until(() => processesIn(tree.root).length === 0, 'the forks to be gone', 10_000);
      } finally {
        await tree.cleanup();
      }
    },
    150_000,
  );
});

describe('where no sandbox can be had', () => {
  let cleanup: (() => Promise<void>) | undefined;
  afterEach(() => cleanup?.());

  async function verbsOn(trusted: boolean) {
    const tree = await makeTempTree({});
    cleanup = tree.cleanup;
    const workspace = await Workspace.open({ root: tree.root });
    const verbs = new Verbs({
      workspace,
      python: '/usr/bin/python3',
      sandbox: new Sandbox({ env: { ...process.env, KILN_BWRAP: 'none' } }),
      trusted: () => trusted,
    });
    return { verbs, root: tree.root };
  }

  it('refuses agent code in an untrusted folder with E_NO_SANDBOX, and logs nothing', async () => {
    const { verbs, root } = await verbsOn(false);
    const error = await verbs.call('execute-code', { code: 'print(1)' }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(KilnError);
    expect((error as KilnError).code).toBe('E_NO_SANDBOX');
    expect((error as KilnError).message).toMatch(/Trust the folder/);
    expect(existsSync(path.join(root, 'scripts'))).toBe(false);
  });

  it('runs in a trusted folder, says sandboxed: false, and the step says so', async () => {
    const { verbs, root } = await verbsOn(true);
    const result = await verbs.call('execute-code', { code: 'print(1)' });
    expect(result).toMatchObject({ stdout: '1\n', sandboxed: false, profile: 'default' });
    expect(readFileSync(path.join(root, result.script), 'utf8')).toMatch(/^# kiln: ran without a sandbox/);
    await verbs.dispose();
  });
});

describe('the pids cgroup of a run', () => {
  it('is joined by the overlay’s shell when writes are staged (no shell more in front of unshare), and holds a fork bomb', async () => {
    if (!existsSync('/sys/fs/cgroup/pids/cgroup.procs')) return;
    const tree = await makeTempTree({});
    const data = await makeTempDir();
    const sandbox = new Sandbox();
    const verbs = new Verbs({
      workspace: await Workspace.open({ root: tree.root }),
      python: '/usr/bin/python3',
      sandbox,
      stageRunWritesIn: data.dir,
    });
    try {
      const prepared = await sandbox.prepare({
        python: '/usr/bin/python3',
        args: [],
        heavy: false,
        workspaceRoot: tree.root,
        readOnly: [],
        masked: [],
        baseEnv: process.env,
        setEnv: {},
        settings: { network: false, env: [] },
        trusted: false,
        stageWritesIn: data.dir,
      });
      await prepared.dispose();
      expect(path.basename(prepared.command)).toBe('unshare');
      expect(prepared.args.some((arg) => arg.includes(RUN_CGROUP_PREFIX) && arg.endsWith('cgroup.procs'))).toBe(true);
      // Root is not held by RLIMIT_NPROC: only the cgroup stops this.
      const result = await verbs.call('execute-code', { code: FORK_BOMB_PY });
      expect(result).toMatchObject({ sandboxed: true, limit: 'processes', files: { staged: true } });
      await until(() => processesIn(tree.root).length === 0, 'the forks to be gone', 5000);
    } finally {
      await verbs.dispose();
      await tree.cleanup();
      await data.cleanup();
    }
  });

  it('left behind by a killed Kiln is swept when runs start', async () => {
    const parent = '/sys/fs/cgroup/pids';
    if (!existsSync(path.join(parent, 'cgroup.procs'))) return;
    const stale = path.join(parent, `${RUN_CGROUP_PREFIX}stale-${process.pid}`);
    mkdirSync(stale);
    // Left by a Kiln killed two hours ago (a young one may be another Kiln's, about to be joined).
    const past = new Date(Date.now() - 2 * 3600_000);
    utimesSync(stale, past, past);
    const tree = await makeTempTree({});
    const verbs = new Verbs({ workspace: await Workspace.open({ root: tree.root }), python: '/usr/bin/python3' });
    try {
      expect((await verbs.call('execute-code', { code: 'print(1)' })).stdout).toBe('1\n');
      await until(() => !existsSync(stale), 'the stale cgroup to be swept');
    } finally {
      await verbs.dispose();
      await tree.cleanup();
      if (existsSync(stale)) rmdirSync(stale);
    }
  });
});

/** Gives others search permission on `dir` and each ancestor that lacks it; resolves what to put back. */
function openToOthers(dir: string): { dir: string; mode: number }[] {
  const changed: { dir: string; mode: number }[] = [];
  for (let at = dir; ; at = path.dirname(at)) {
    const mode = statSync(at).mode & 0o7777;
    if (!(mode & 0o001)) {
      chmodSync(at, mode | 0o001);
      changed.push({ dir: at, mode });
    }
    if (path.dirname(at) === at) return changed;
  }
}

import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VerbRunResult } from '../../shared/contract/verbs';
import { KilnError } from '../../shared/errors';
import { startServices, type RunningServices } from '../../test-support/services';
import { makeTempDir, makeTempTree } from '../../test-support/temp-workspace';
import { FORK_BOMB_PY, processesIn } from '../../test-support/processes';
import { until } from '../../test-support/until';

/*
 * Escape attempts against the sandbox of run-file and execute-code, each through the real verb path: the app's
 * contract (`verbs.call`) and the MCP server over stdio. Each asserts on the result and on disk. Kiln runs as root
 * here, so the canaries are readable to the caller: only the sandbox keeps them out.
 */

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/**
 * The wall limit of the fronts the wall-limit test starts for itself. The other tests run under the profile's own
 * limit (60 s): a fork bomb reaching the process cap on a loaded 2-core CI can take longer than a short limit, and
 * the run would then end by the clock, not by the cap it is there to show.
 */
const WALL_LIMIT_MS = 3000;
const SECRET = `kiln-canary-${randomBytes(8).toString('hex')}`;
const SECRET_VARIABLE = 'KILN_TEST_CANARY_TOKEN';

type Outcome = { ok: true; result: VerbRunResult } | { ok: false; code: string; message: string };

interface Front {
  root: string;
  call(verb: 'run-file' | 'execute-code', args: Record<string, unknown>): Promise<Outcome>;
  close(): Promise<void>;
}

let homeCanaryDir: string;
let homeCanary: string;
let outside: { dir: string; cleanup: () => Promise<void> };
const fronts: Record<'app' | 'mcp', Front> = {} as Record<'app' | 'mcp', Front>;

const files = {
  'src/helpers.py': 'def double(v):\n    return v * 2\n',
  'src/report.py':
    'from helpers import double\nimport os\nos.makedirs("out", exist_ok=True)\nopen("out/report.txt", "w").write(str(double(21)))\nprint(open("data/in.txt").read().strip())\n',
  'data/in.txt': 'relative paths work\n',
};

async function startApp(runLimitMs?: number): Promise<Front> {
  const running: RunningServices = await startServices(files, { runLimitMs });
  return {
    root: running.root,
    call: async (verb, args) => {
      try {
        return {
          ok: true,
          result: (await running.bridge.request('verbs.call', { verb, args } as never)) as VerbRunResult,
        };
      } catch (err) {
        if (err instanceof KilnError) return { ok: false, code: err.code, message: err.message };
        throw err;
      }
    },
    close: () => running.close(),
  };
}

async function startMcp(runLimitMs?: number): Promise<Front> {
  const { root, cleanup } = await makeTempTree(files);
  const data = await makeTempDir('kiln-data-');
  let log = '';
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      '--import',
      'tsx',
      path.join(REPO, 'main/mcp/cli.ts'),
      root,
      ...(runLimitMs ? ['--test-run-limit-ms', String(runLimitMs)] : []),
    ],
    cwd: REPO,
    stderr: 'pipe',
    // The operator's whole environment, secrets included, as an MCP client launched from their shell passes it.
    env: { ...(process.env as Record<string, string>), KILN_DATA_DIR: data.dir },
  });
  transport.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const client = new Client({ name: 'kiln-sandbox-test', version: '0.0.0' });
  await client.connect(transport);
  return {
    root,
    call: async (verb, args) => {
      const answer = (await client.callTool({ name: verb, arguments: args })) as CallToolResult;
      if (!answer.isError) return { ok: true, result: answer.structuredContent as VerbRunResult };
      const text = answer.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
      const match = /^(E_[A-Z_]+): ([\s\S]*)$/.exec(text);
      if (!match) throw new Error(`Unexpected MCP error: ${text}\n${log}`);
      return { ok: false, code: match[1], message: match[2] };
    },
    close: async () => {
      await client.close();
      await cleanup();
      await data.cleanup();
    },
  };
}

beforeAll(async () => {
  // The operator's secrets: a file in the real $HOME and a variable in Kiln's environment.
  homeCanaryDir = await fs.mkdtemp(path.join(os.homedir(), '.kiln-sandbox-canary-'));
  homeCanary = path.join(homeCanaryDir, 'id_rsa');
  await fs.writeFile(homeCanary, SECRET);
  process.env[SECRET_VARIABLE] = SECRET;
  outside = await makeTempDir('kiln-outside-');
  [fronts.app, fronts.mcp] = await Promise.all([startApp(), startMcp()]);
}, 60_000);

afterAll(async () => {
  await Promise.all(Object.values(fronts).map((front) => front.close()));
  delete process.env[SECRET_VARIABLE];
  await fs.rm(homeCanaryDir, { recursive: true, force: true });
  await outside?.cleanup();
});

/** A loopback listener of the host that counts the connections made to it (and closes each). */
async function countingListener(): Promise<{ server: net.Server; port: number; connections: () => number }> {
  let count = 0;
  const server = net.createServer((socket) => {
    count++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as net.AddressInfo).port, connections: () => count };
}

async function run(front: Front, code: string, extra: Record<string, unknown> = {}): Promise<VerbRunResult> {
  const outcome = await front.call('execute-code', { code, ...extra });
  if (!outcome.ok) throw new Error(`${outcome.code}: ${outcome.message}`);
  return outcome.result;
}

describe.each(['app', 'mcp'] as const)('the sandbox, through the %s', (name) => {
  const front = () => fronts[name];

  it('hides a canary file in the operator’s $HOME, also through a symlink in the workspace', async () => {
    await fs.symlink(homeCanary, path.join(front().root, 'innocent.txt'));
    const direct = await run(front(), `print(open(${JSON.stringify(homeCanary)}).read())`);
    expect(direct.returncode).not.toBe(0);
    expect(direct.stderr).toContain('FileNotFoundError');
    const linked = await run(front(), 'print(open("innocent.txt").read())');
    expect(linked.returncode).not.toBe(0);
    for (const result of [direct, linked]) {
      expect(result.sandboxed).toBe(true);
      expect(result.stdout + result.stderr).not.toContain(SECRET);
    }
    // Home is there, empty; the step still names how it ran.
    const home = await run(front(), 'import os\nprint(os.environ["HOME"], os.listdir(os.path.expanduser("~")))');
    expect(home.stdout).toBe(`${os.homedir()} []\n`);
    expect(readFileSync(path.join(front().root, home.script), 'utf8')).toMatch(/^# kiln: ran sandboxed \(bubblewrap\)/);
  });

  it('passes no secret variable, only the allowlist', async () => {
    const result = await run(front(), 'import os, json\nprint(json.dumps(dict(os.environ)))');
    const env = JSON.parse(result.stdout) as Record<string, string>;
    expect(JSON.stringify(env)).not.toContain(SECRET);
    expect(env[SECRET_VARIABLE]).toBeUndefined();
    expect(Object.keys(env).some((key) => /TOKEN|KEY|SECRET|JUPYTER/.test(key))).toBe(false);
    expect(env.PYTHONPATH).toBe(path.join(front().root, 'src'));
  });

  it('writes nothing outside the workspace, and nothing into scripts/', async () => {
    const target = path.join(outside.dir, `${name}.txt`);
    const homeFile = path.join(os.homedir(), `.kiln-sandbox-pwned-${name}`);
    const result = await run(
      front(),
      [
        'import os',
        'for p in [' +
          [target, homeFile, '/usr/kiln-pwned', 'scripts/forged.py'].map((p) => JSON.stringify(p)).join(', ') +
          ']:',
        '    try:',
        '        open(p, "w").write("x")',
        '        print("wrote", p)',
        '    except OSError as e:',
        '        print("refused", p, e.errno)',
      ].join('\n'),
    );
    // /tmp and $HOME are the sandbox's own: a write there lands in memory that vanishes with the run.
    expect(existsSync(target)).toBe(false);
    expect(existsSync(homeFile)).toBe(false);
    expect(existsSync('/usr/kiln-pwned')).toBe(false);
    expect(existsSync(path.join(front().root, 'scripts/forged.py'))).toBe(false);
    expect(result.stdout).toMatch(/refused \/usr\/kiln-pwned 30/);
    expect(result.stdout).toMatch(/refused scripts\/forged\.py 30/);
  });

  it('cannot connect to a loopback listener of the host', async () => {
    const { server, port, connections } = await countingListener();
    try {
      const result = await run(
        front(),
        `import socket\ntry:\n    socket.create_connection(("127.0.0.1", ${port}), timeout=2)\n    print("connected")\nexcept OSError as e:\n    print("refused", e.errno)`,
      );
      expect(result.stdout).toMatch(/^refused/);
      expect(connections()).toBe(0);
    } finally {
      server.close();
    }
  });

  it('stops a fork bomb at the process limit and leaves nothing running', async () => {
    const result = await run(front(), FORK_BOMB_PY);
    expect(result.stdout).not.toContain('forked them all');
    expect(result.returncode).not.toBe(0);
    expect(result.limit).toBe('processes');
    expect(result.limit_message).toMatch(/^Process limit of \d+ processes and threads reached/);
    // The run's PID namespace is gone with its answer; the bound is only for a failure to say what stayed.
    await until(() => processesIn(front().root).length === 0, 'the forks to be gone');
    // Past the profile's 60 s wall limit: however slowly a loaded machine forks, the run ends before the test does.
  }, 120_000);

  it('refuses memory past the cap, with a clear result', async () => {
    const result = await run(front(), 'block = bytearray(6 * 1024 ** 3)\nprint("allocated")');
    expect(result.stdout).toBe('');
    expect(result.returncode).toBe(1);
    expect(result.limit).toBe('memory');
    expect(result.limit_message).toMatch(/^Memory limit of .* reached/);
  });

  it('ends a run at the wall limit with its grandchild that ignores SIGTERM', async () => {
    // A front of its own with a short wall limit (the shared ones keep the profile's, see WALL_LIMIT_MS).
    const clocked = await (name === 'app' ? startApp : startMcp)(WALL_LIMIT_MS);
    try {
      await endsAtTheWallLimit(clocked);
    } finally {
      await clocked.close();
    }
  }, 60_000);

  it('still imports src/, reads relative paths from the root and writes results into the workspace', async () => {
    const outcome = await front().call('run-file', { path: 'src/report.py' });
    expect(outcome.ok && outcome.result.stdout).toBe('relative paths work\n');
    expect(readFileSync(path.join(front().root, 'out/report.txt'), 'utf8')).toBe('42');
  });
});

/** A run past the wall limit is ended, with a grandchild that left its session and ignores SIGTERM. */
async function endsAtTheWallLimit(front: Front): Promise<void> {
  const result = await run(
    front,
    [
      'import os, signal, time',
      'if os.fork() == 0:',
      '    os.setsid()',
      '    if os.fork() == 0:',
      '        signal.signal(signal.SIGTERM, signal.SIG_IGN)',
      '        time.sleep(600)',
      '    os._exit(0)',
      'print("started", flush=True)',
      'time.sleep(600)',
    ].join('\n'),
  );
  expect(result.stdout).toBe('started\n');
  expect(result).toMatchObject({ timed_out: true, limit: 'time' });
  expect(result.limit_message).toBe(
    `Time limit of ${WALL_LIMIT_MS / 1000} s reached: the run and every process it started were stopped. Pass heavy: true for the training profile.`,
  );
  await until(() => processesIn(front.root).length === 0, 'the grandchild to be gone', 5000);
}

describe('inside the sandbox', () => {
  it('numpy and pandas work, and heavy runs get the training profile', async () => {
    const result = await run(
      fronts.app,
      'import numpy as np, pandas as pd\nprint(int(pd.DataFrame({"a": np.arange(4)})["a"].sum()))',
      { heavy: true },
    );
    expect(result).toMatchObject({ stdout: '6\n', returncode: 0, sandboxed: true, profile: 'heavy' });
    expect(readFileSync(path.join(fronts.app.root, result.script), 'utf8')).toMatch(
      /^# kiln: ran sandboxed \(bubblewrap\), profile heavy: /,
    );
  });
});

describe('the sandbox block of the project config', () => {
  it('opens the network and passes its variables only once the folder is trusted', async () => {
    // A service on the host's loopback: reachable from a run only as a port the trusted config names.
    const { server, port, connections } = await countingListener();
    const running = await startServices({
      '.kiln/config.yaml': `sandbox:\n  network: true\n  env: [${SECRET_VARIABLE}]\n  host_ports: [${port}]\n`,
    });
    const code = [
      'import os, socket',
      'try:',
      `    socket.create_connection(("127.0.0.1", ${port}), timeout=2).close()`,
      '    print("connected")',
      'except OSError:',
      '    print("refused")',
      `print(os.environ.get(${JSON.stringify(SECRET_VARIABLE)}) == ${JSON.stringify(SECRET)})`,
    ].join('\n');
    const runCode = async () =>
      (await running.bridge.request('verbs.call', { verb: 'execute-code', args: { code } })) as VerbRunResult;
    try {
      // Untrusted: the block is withheld, and named as such.
      expect((await running.bridge.request('trust.get', {})).withheld).toEqual([
        'sandbox.network',
        'sandbox.env',
        'sandbox.host_ports',
      ]);
      expect((await runCode()).stdout).toBe('refused\nFalse\n');
      await running.bridge.request('trust.set', { trusted: true });
      expect((await runCode()).stdout).toBe('connected\nTrue\n');
      expect(connections()).toBe(1);
    } finally {
      server.close();
      await running.close();
    }
  });
});

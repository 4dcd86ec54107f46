/**
 * Workspace trust end to end in main: real services, a real Jupyter started from the configured command
 * (a wrapper that leaves a marker, then runs Debian's jupyter), the trust list in a real data folder.
 */
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryStore } from '../../main/prefs';
import { dispatch } from '../../main/router';
import { createServices, type Services } from '../../main/services';
import { makeTempTree } from '../../test-support/temp-workspace';
import { theirProjectConfig } from '../../test-support/untrusted-config';

let root: string;
let dataDir: string;
let tools: string;
let marker: string;
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  tools = await mkdtemp(path.join(os.tmpdir(), 'kiln-trust-tools-'));
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'kiln-trust-data-'));
  marker = path.join(tools, 'ran');
  const wrapper = path.join(tools, 'jupyter');
  await writeFile(wrapper, `#!/bin/sh\necho $$ >> "${marker}"\nexec /usr/bin/jupyter "$@"\n`);
  await chmod(wrapper, 0o755);
  // The operator's own config: always trusted.
  await writeFile(
    path.join(dataDir, 'config.yaml'),
    'models:\n  mine:\n    provider: openai-compatible\n    base_url: http://127.0.0.1:9/v1\n    model: m\nfile_editing:\n  model: mine\n',
  );
  let cleanup: () => Promise<void>;
  ({ root, cleanup } = await makeTempTree({
    '.kiln/config.yaml': theirProjectConfig({ jupyterCommand: wrapper }),
  }));
  cleanups.push(
    cleanup,
    () => rm(tools, { recursive: true, force: true }),
    () => rm(dataDir, { recursive: true, force: true }),
  );
});
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
});

async function open(): Promise<{ services: Services; call: (channel: string, args?: unknown) => Promise<unknown> }> {
  const services = await createServices({ root, dataDir, prefsStore: new MemoryStore(), trash: async () => false });
  const call = async (channel: string, args: unknown = {}) => {
    const reply = await dispatch(services.handlers, channel, args);
    if (!reply.ok) throw new Error(`${channel}: ${reply.error.code} ${reply.error.message}`);
    return reply.value;
  };
  return { services, call };
}

const markerPids = async (): Promise<number[]> =>
  (await readFile(marker, 'utf8').catch(() => '')).split('\n').filter(Boolean).map(Number);

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('workspace trust', () => {
  it('runs no project jupyter.command and uses no project model until trusted; trusting runs it; revoking stops it', async () => {
    const { services, call } = await open();
    try {
      expect(await call('trust.get')).toEqual({
        trusted: false,
        withheld: ['models.theirs', 'jupyter.command'],
        withheldFeatures: [],
      });
      // No Jupyter at all starts for an untrusted folder; the assistant uses the operator's own model.
      await expect(call('notebook.kernelSpecs')).rejects.toThrow(/E_UNTRUSTED/);
      expect(await markerPids()).toEqual([]);
      expect(await call('config.get')).toMatchObject({ fileEditing: { enabled: true, model: 'mine', source: 'user' } });
      expect((await call('editAssistant.models')) as { models: { alias: string }[] }).toMatchObject({
        models: [{ alias: 'mine' }],
      });

      expect(await call('trust.set', { trusted: true })).toEqual({ trusted: true, withheld: [], withheldFeatures: [] });
      expect(await call('notebook.kernelSpecs')).toMatchObject({ default: 'python3' });
      const [pid] = await markerPids();
      expect(pid).toBeGreaterThan(0);
      expect(alive(pid)).toBe(true);
      expect(await call('config.get')).toMatchObject({
        fileEditing: { enabled: true, model: 'theirs', source: 'project' },
      });

      expect(await call('trust.set', { trusted: false })).toEqual({
        trusted: false,
        withheld: ['models.theirs', 'jupyter.command'],
        withheldFeatures: [],
      });
      await expect(call('notebook.kernelSpecs')).rejects.toThrow(/E_UNTRUSTED/);
      expect(alive(pid)).toBe(false);
      expect(await markerPids()).toEqual([pid]);
      expect(await call('config.get')).toMatchObject({ fileEditing: { model: 'mine', source: 'user' } });
    } finally {
      await services.dispose();
    }
  }, 120_000);

  it('remembers the decision per folder in the app data, and only for that folder', async () => {
    const first = await open();
    await first.call('trust.set', { trusted: true });
    await first.services.dispose();
    const again = await open();
    expect(await again.call('trust.get')).toMatchObject({ trusted: true });
    await again.call('trust.set', { trusted: false });
    await again.services.dispose();
    const stored = JSON.parse(await readFile(path.join(dataDir, 'trusted-folders.json'), 'utf8')) as {
      folders: string[];
    };
    expect(stored.folders).toEqual([]);

    const other = await makeTempTree({
      '.kiln/config.yaml': 'jupyter:\n  url: https://elsewhere.example/\n  token_env: HOME\n',
    });
    cleanups.push(other.cleanup);
    const trustedHere = await open();
    await trustedHere.call('trust.set', { trusted: true });
    await trustedHere.services.dispose();
    const elsewhere = await createServices({ root: other.root, dataDir, prefsStore: new MemoryStore() });
    const state = await dispatch(elsewhere.handlers, 'trust.get', {});
    await elsewhere.dispose();
    expect(state).toEqual({
      ok: true,
      value: { trusted: false, withheld: ['jupyter.url', 'jupyter.token_env'], withheldFeatures: [] },
    });
  });

  it('names git in a repository and agent code runs without a sandbox, and refuses those runs until trusted', async () => {
    const repo = await makeTempTree({ '.git/HEAD': 'ref: refs/heads/main\n', 'src/x.py': 'print(1)\n' });
    cleanups.push(repo.cleanup);
    // A machine without a sandbox (bubblewrap missing, or no user namespaces).
    process.env.KILN_BWRAP = 'none';
    const services = await createServices({ root: repo.root, dataDir, prefsStore: new MemoryStore() });
    delete process.env.KILN_BWRAP;
    try {
      const state = (await dispatch(services.handlers, 'trust.get', {})) as {
        ok: true;
        value: { withheldFeatures: { name: string }[] };
      };
      expect(state.value.withheldFeatures.map((feature) => feature.name)).toEqual(['git', 'agent code runs']);
      const refused = await dispatch(services.handlers, 'verbs.call', { verb: 'run-file', args: { path: 'src/x.py' } });
      expect(refused).toMatchObject({ ok: false, error: { code: 'E_NO_SANDBOX' } });
      expect(await dispatch(services.handlers, 'verbs.sandbox', {})).toMatchObject({
        ok: true,
        value: { available: false },
      });
      const trusted = await dispatch(services.handlers, 'trust.set', { trusted: true });
      expect(trusted).toMatchObject({ ok: true, value: { trusted: true, withheldFeatures: [] } });
      const ran = await dispatch(services.handlers, 'verbs.call', { verb: 'run-file', args: { path: 'src/x.py' } });
      expect(ran).toMatchObject({ ok: true, value: { stdout: '1\n', sandboxed: false } });
      await dispatch(services.handlers, 'trust.set', { trusted: false });
    } finally {
      await services.dispose();
    }
  });
});

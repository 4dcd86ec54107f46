import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { AnyEvent, DocumentDiagnostics } from '../../shared/contract';
import { MemoryStore } from '../prefs';
import { dispatch } from '../router';
import { createServices, type Services } from '../services';
import { makeTempTree } from '../../test-support/temp-workspace';
import { until } from '../../test-support/until';

// A real pyright process: a cloned project's pyrightconfig.json names extra paths (it could as well name a venv).
const MAIN = 'import hostmod\n\nprint(hostmod.VALUE)\n';

let services: Services;
const events: AnyEvent[] = [];
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  const tree = await makeTempTree({
    'pyrightconfig.json': JSON.stringify({ extraPaths: ['hostile'] }),
    'hostile/hostmod.py': 'VALUE = 1\n',
    'main.py': MAIN,
  });
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'kiln-lsp-untrusted-'));
  cleanups.push(tree.cleanup, () => rm(dataDir, { recursive: true, force: true }));
  services = await createServices({
    root: tree.root,
    dataDir,
    prefsStore: new MemoryStore(),
    trash: async () => false,
  });
  cleanups.push(() => services.dispose());
  services.hub.onEvent((event) => events.push(event));
});

afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The latest diagnostics for main.py after `from` events, once the server answered with some. */
const latest = (from: number) =>
  events
    .slice(from)
    .filter((e): e is Extract<AnyEvent, { channel: 'language.diagnostics' }> => e.channel === 'language.diagnostics')
    .map((e) => e.payload as DocumentDiagnostics)
    .filter((d) => d.path === 'main.py')
    .at(-1);
const unresolved = (d: DocumentDiagnostics) =>
  d.diagnostics.some((x) => /"hostmod" could not be resolved/.test(x.message));

it("an untrusted project's pyrightconfig.json extraPaths do not apply; trusted, they do", async () => {
  const call = (channel: string, args: unknown) => dispatch(services.handlers, channel, args);
  await call('language.didOpen', { path: 'main.py', version: 1, text: MAIN });
  const untrusted = await until(() => latest(0), 'diagnostics for main.py (untrusted)', 60_000);
  expect(unresolved(untrusted)).toBe(true);

  // Trusted: the server restarts with the project's own config, and the import resolves through its extraPaths.
  const mark = events.length;
  await call('trust.set', { trusted: true });
  const trusted = await until(
    () => {
      const d = latest(mark);
      return d && !unresolved(d) ? d : null;
    },
    'diagnostics for main.py without the unresolved import (trusted)',
    60_000,
  );
  expect(trusted.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
}, 150_000);

import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { makeTempTree } from '../../test-support/temp-workspace';
import { swallowsInMain } from './swallowed';
import { wireSendsInMain } from './wire-senders';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Folders whose swallowed failures another branch is giving reasons to (issue 41's kernel and notebook splits);
 * remove each once that branch is merged.
 */
const SWALLOWS_PENDING: string[] = [];

/**
 * Who may still send on a wire channel itself, and why. Everything else exposes onDid… events that main/services.ts
 * announces in its one table; take an entry out when its folder does the same.
 */
const WIRE_SENDERS: Record<string, string> = {
  'main/events.ts': 'the hub itself: announce() sends what the table maps',
  'main/hosts/electron/main.ts': "the host's own request to the renderer (window.saveAll), no service's event",
};

const allowed = (file: string, prefixes: Iterable<string>) => [...prefixes].some((p) => file.startsWith(p));

describe('main leaves a trace of every failure it swallows', () => {
  it('no `.catch(() => undefined)`-style handler or empty catch without a log or an `expected:` comment', () => {
    const found = swallowsInMain(ROOT).filter((s) => !allowed(s.file, SWALLOWS_PENDING));
    expect(found.map((s) => `${s.file}:${s.line} ${s.text}`)).toEqual([]);
  });

  it('finds silent handlers and empty catches, and lets an `expected:` comment or a log through', async () => {
    const { root, cleanup } = await makeTempTree({
      'main/a.ts': [
        'const a = p.catch(() => undefined);',
        'const b = p.catch(() => [] as string[]);',
        'const c = p.catch(() => {});',
        'try { f(); } catch {',
        '  // gone',
        '}',
        '// expected: nothing there yet',
        'const d = p.catch(() => null);',
        'const e = p.catch(log.caught("why", null));',
        'try { f(); } catch {',
        '  // expected: already gone',
        '}',
        'const g = p.catch((err) => report(err));',
        '',
      ].join('\n'),
      'main/a.test.ts': 'p.catch(() => undefined);\n',
    });
    try {
      expect(swallowsInMain(root).map((s) => `${s.file}:${s.line} ${s.kind}`)).toEqual([
        'main/a.ts:1 catch-handler',
        'main/a.ts:2 catch-handler',
        'main/a.ts:3 catch-handler',
        'main/a.ts:4 empty-catch',
      ]);
    } finally {
      await cleanup();
    }
  });
});

describe('main announces service events in one table', () => {
  it('no service outside the listed ones sends on a wire channel itself', () => {
    const found = wireSendsInMain(ROOT).filter((s) => !allowed(s.file, Object.keys(WIRE_SENDERS)));
    expect(found.map((s) => `${s.file}:${s.line} ${s.channel}`)).toEqual([]);
  });

  it('every listed sender still sends (a folder that moved to onDid… events leaves the list)', () => {
    const senders = wireSendsInMain(ROOT).map((s) => s.file);
    const stale = Object.keys(WIRE_SENDERS).filter((entry) => !senders.some((file) => file.startsWith(entry)));
    expect(stale).toEqual([]);
  });

  it("finds a named wire channel and a passed-through channel, not another emitter's events", async () => {
    const { root, cleanup } = await makeTempTree({
      'main/t.ts': [
        "this.options.emit('terminal.data', { id, data });",
        'emit: (channel, payload) => hub.emit(channel, payload),',
        "ws.emit('connection', ws);",
        "watcher.emit('created', child);",
        '',
      ].join('\n'),
    });
    try {
      expect(wireSendsInMain(root).map((s) => `${s.file}:${s.line} ${s.channel}`)).toEqual([
        'main/t.ts:1 terminal.data',
        'main/t.ts:2 channel',
      ]);
    } finally {
      await cleanup();
    }
  });
});

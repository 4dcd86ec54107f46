import { tool } from 'ai';
import * as fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { KilnError } from '../../shared/errors';
import { editTools } from '../edit-assistant/harness';
import { RunEngine, composeSystemPrompt } from './engine';
import { selectTools } from './kinds';
import { countLineChanges } from '../edit-assistant/line-diff';

const verb = (name: string) => tool({ description: name, inputSchema: z.object({ path: z.string() }) });
const verbs = { 'write-file': verb('write-file'), 'run-file': verb('run-file'), 'edit-file': verb('edit-file') };

describe('session kind guards', () => {
  it('gives the edit kind exactly propose_file, whatever tools or allowlist are configured', () => {
    expect(Object.keys(selectTools('edit', { intrinsic: editTools() }))).toEqual(['propose_file']);
    const withEverything = selectTools('edit', {
      intrinsic: editTools(),
      configured: verbs,
      allowlist: ['write-file', 'run-file'],
    });
    expect(Object.keys(withEverything)).toEqual(['propose_file']);
    const withEmptyAllowlist = selectTools('edit', { intrinsic: editTools(), allowlist: [] });
    expect(Object.keys(withEmptyAllowlist)).toEqual(['propose_file']);
  });

  it('refuses to run the edit kind without its intrinsic tool', () => {
    expect(() => selectTools('edit', { intrinsic: {}, configured: verbs })).toThrow(/propose_file/);
  });

  it('has the workspace kind honour the allowlist (absent = all verbs)', () => {
    expect(
      Object.keys(selectTools('workspace', { intrinsic: {}, configured: verbs, allowlist: ['run-file'] })),
    ).toEqual(['run-file']);
    expect(Object.keys(selectTools('workspace', { intrinsic: {}, configured: verbs, allowlist: null }))).toEqual(
      Object.keys(verbs),
    );
  });
});

describe('RunEngine gate', () => {
  it('refuses a second edit run on a busy session with E_BUSY, and frees the slot when it is disposed', async () => {
    const engine = new RunEngine();
    const first = await engine.acquire('a.txt', 'edit');
    const second = await engine.acquire('a.txt', 'edit').catch((e: unknown) => e);
    expect(second).toBeInstanceOf(KilnError);
    expect((second as KilnError).code).toBe('E_BUSY');
    // Another file's session is independent.
    const other = await engine.acquire('b.txt', 'edit');
    other.dispose();
    first.dispose();
    const third = await engine.acquire('a.txt', 'edit');
    expect(engine.isRunning('a.txt')).toBe(true);
    third.dispose();
    expect(engine.isRunning('a.txt')).toBe(false);
  });

  it('queues workspace runs one at a time', async () => {
    const engine = new RunEngine();
    const order: string[] = [];
    const first = await engine.acquire('ws', 'workspace');
    const second = engine.acquire('ws', 'workspace').then((slot) => {
      order.push('second started');
      return slot;
    });
    // Every promise job queued so far runs before the next turn of the event loop: a second run that
    // did not wait for the first would have started by then.
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual([]);
    order.push('first done');
    first.dispose();
    (await second).dispose();
    expect(order).toEqual(['first done', 'second started']);
  });

  it('stop aborts the running slot', async () => {
    const engine = new RunEngine();
    const slot = await engine.acquire('a', 'edit');
    expect(engine.stop('a')).toBe(true);
    expect(slot.signal.aborted).toBe(true);
    slot.dispose();
    expect(engine.stop('a')).toBe(false);
  });

  it('whenIdle waits until the running and the waiting runs of the session have let go of their slots', async () => {
    const engine = new RunEngine();
    const first = await engine.acquire('ws', 'workspace');
    const second = engine.acquire('ws', 'workspace');
    let idle = false;
    const settled = engine.whenIdle('ws').then(() => (idle = true));
    first.dispose();
    const slot = await second;
    expect(idle).toBe(false);
    slot.dispose();
    // Disposing again (a finally after a catch that already did) changes nothing.
    slot.dispose();
    await settled;
    expect(engine.isRunning('ws')).toBe(false);
  });

  it('shutdown aborts the running run, refuses new ones, and tells a waiting turn Kiln is shutting down', async () => {
    const engine = new RunEngine();
    const running = await engine.acquire('ws', 'workspace');
    const waiting = engine.acquire('ws', 'workspace');
    engine.dispose();
    expect(running.signal.aborted).toBe(true);
    await expect(engine.acquire('a.txt', 'edit')).rejects.toMatchObject({ code: 'E_SHUTTING_DOWN' });
    running.dispose();
    await expect(waiting).rejects.toMatchObject({ code: 'E_SHUTTING_DOWN' });
    await engine.whenIdle('ws');
    expect(engine.isRunning('ws')).toBe(false);
  });
});

describe('prompt layers', () => {
  it('keeps the operator layer after the harness, and omits it when empty', () => {
    expect(composeSystemPrompt('HARNESS', '')).toBe('HARNESS');
    expect(composeSystemPrompt('HARNESS', 'Be terse.')).toBe('HARNESS\n\n## Operator instructions\n\nBe terse.');
  });
});

describe('the run engine has no path to the filesystem', () => {
  it('imports neither fs nor the workspace, directly or through its local imports', async () => {
    const here = path.dirname(fileURLToPath(import.meta.url));
    const seen = new Set<string>();
    const external: string[] = [];
    const visit = async (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const source = await fs.readFile(file, 'utf8');
      for (const match of source.matchAll(
        /(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g,
      )) {
        const spec = match[1] ?? match[2];
        if (spec.startsWith('.')) {
          const target = path.resolve(path.dirname(file), spec);
          const candidates = [`${target}.ts`, path.join(target, 'index.ts')];
          for (const c of candidates) {
            if (
              await fs.stat(c).then(
                () => true,
                () => false,
              )
            ) {
              await visit(c);
              break;
            }
          }
        } else {
          external.push(spec);
        }
      }
    };
    await visit(path.join(here, 'engine.ts'));
    const files = [...seen].map((f) => path.relative(here, f));
    // The workspace service (main/workspace) is unreachable; shared/contract's schemas are fine.
    expect(files.filter((f) => f.startsWith('../workspace') || f.startsWith('../watcher'))).toEqual([]);
    expect(files).toContain('kinds.ts');
    expect(files.some((f) => /^\.\.\/(edit-assistant|agent)\/|session-store|providers/.test(f))).toBe(false);
    expect(external.filter((s) => /(^|:)fs(\/|$)|fs\/promises|workspace|chokidar|child_process/.test(s))).toEqual([]);
  });
});

describe('line counts for proposal chips', () => {
  it('counts added and removed lines like a line diff', () => {
    expect(countLineChanges('a\nb\nc\n', 'a\nb\nc\n')).toEqual({ linesAdded: 0, linesRemoved: 0 });
    expect(countLineChanges('a\nb\nc\n', 'a\nB\nc\nd\n')).toEqual({ linesAdded: 2, linesRemoved: 1 });
    expect(countLineChanges('', 'x\ny\n')).toEqual({ linesAdded: 2, linesRemoved: 0 });
    expect(countLineChanges('x\ny\nz\n', 'y\n')).toEqual({ linesAdded: 0, linesRemoved: 2 });
    expect(countLineChanges('1\n2\n3\n4\n', '4\n3\n2\n1\n')).toEqual({ linesAdded: 3, linesRemoved: 3 });
  });
});

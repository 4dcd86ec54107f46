import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { FsChange } from '../../shared/contract';
import { Workspace } from '../workspace';
import { makeTempTree } from '../workspace/test-support';
import { WorkspaceWatcher } from './watcher';

let root: string;
let cleanup: () => Promise<void>;
let ws: Workspace;
let watcher: WorkspaceWatcher;
let changes: FsChange[];

beforeEach(async () => {
  ({ root, cleanup } = await makeTempTree({ 'a.txt': 'a\n', 'src/': '' }));
  ws = await Workspace.open({ root });
  changes = [];
  watcher = new WorkspaceWatcher({ root, ledger: ws.ledger, onChange: (c) => changes.push(c) });
  await watcher.ready;
});
afterEach(async () => {
  await watcher.dispose();
  await cleanup();
});

async function waitFor(predicate: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !predicate(); i++) await new Promise((r) => setTimeout(r, 50));
  expect(predicate()).toBe(true);
}
const seen = (type: FsChange['type'], p: string) => changes.find((c) => c.type === type && 'path' in c && c.path === p);

it('reports changes by other programs as external', async () => {
  await writeFile(path.join(root, 'b.txt'), 'b');
  await mkdir(path.join(root, 'dir'));
  await writeFile(path.join(root, 'a.txt'), 'changed');
  await waitFor(() => Boolean(seen('created', 'b.txt') && seen('created', 'dir') && seen('updated', 'a.txt')));
  await rm(path.join(root, 'b.txt'));
  await rm(path.join(root, 'dir'), { recursive: true });
  await waitFor(() => Boolean(seen('deleted', 'b.txt') && seen('deleted', 'dir')));
  expect(changes.every((c) => c.origin === 'external')).toBe(true);
});

it("reports Kiln's own writes with their origin, never echoing them as external", async () => {
  await ws.write('a.txt', 'by operator');
  await ws.write('src/agent.py', 'x = 1', { origin: 'agent' });
  await waitFor(() => Boolean(seen('updated', 'a.txt') && seen('created', 'src/agent.py')));
  expect(seen('updated', 'a.txt')?.origin).toBe('operator');
  expect(seen('created', 'src/agent.py')?.origin).toBe('agent');
  expect(changes.filter((c) => c.origin === 'external')).toEqual([]);
  // Atomic writes use a temp file; it must never surface.
  expect(changes.some((c) => 'path' in c && c.path.includes('.kiln-'))).toBe(false);
});

it("marks an agent's write made by another Kiln process (the MCP server) as the agent's", async () => {
  const otherProcess = await Workspace.open({ root });
  expect(otherProcess.ledger).not.toBe(ws.ledger);
  await otherProcess.write('src/from-mcp.py', 'y = 2', { origin: 'agent' });
  await writeFile(path.join(root, 'by-hand.txt'), 'typed');
  await waitFor(() => Boolean(seen('created', 'src/from-mcp.py') && seen('created', 'by-hand.txt')));
  expect(seen('created', 'src/from-mcp.py')?.origin).toBe('agent');
  expect(seen('created', 'by-hand.txt')?.origin).toBe('external');
});

it('reports files written the instant their folders appear, once each', async () => {
  const burst = path.join(root, 'burst', 'deep');
  await mkdir(burst, { recursive: true });
  for (let i = 0; i < 5; i++) await writeFile(path.join(burst, `f${i}.txt`), 'x');
  await waitFor(() => [0, 1, 2, 3, 4].every((i) => seen('created', `burst/deep/f${i}.txt`)));
  await new Promise((r) => setTimeout(r, 400));
  for (let i = 0; i < 5; i++) {
    expect(changes.filter((c) => c.type === 'created' && c.path === `burst/deep/f${i}.txt`)).toHaveLength(1);
  }
});

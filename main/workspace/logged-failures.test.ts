import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempTree } from '../../test-support/temp-workspace';
import { closeLog, openLog } from '../log';
import { Workspace } from './workspace';

let root: string;
let logDir: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  ({ root, cleanup } = await makeTempTree({ 'a.txt': 'secret file body\n', 'b.txt': 'b\n' }));
  logDir = await mkdtemp(path.join(os.tmpdir(), 'kiln-ws-log-'));
  openLog({ dir: logDir, level: 'debug' });
});
afterEach(async () => {
  closeLog();
  await cleanup();
  await rm(logDir, { recursive: true, force: true });
});

async function records(): Promise<Array<Record<string, unknown>>> {
  const text = await readFile(path.join(logDir, 'kiln.log'), 'utf8');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('failures the workspace survives', () => {
  it('a history that fails to keep a version: the write goes on and the log says why, without the content', async () => {
    const ws = await Workspace.open({
      root,
      beforeReplace: () => Promise.reject(Object.assign(new Error('disk full'), { code: 'ENOSPC' })),
    });
    await ws.write('a.txt', 'new body\n');
    expect(await readFile(path.join(root, 'a.txt'), 'utf8')).toBe('new body\n');
    expect(await records()).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        scope: 'workspace',
        message: expect.stringContaining('local history could not keep'),
        err: expect.objectContaining({ code: 'ENOSPC' }),
      }),
    );
    expect(await readFile(path.join(logDir, 'kiln.log'), 'utf8')).not.toContain('secret file body');
  });

  it('an OS trash that throws: the delete asks for permanent, the entry stays, and the log says why', async () => {
    const ws = await Workspace.open({ root, trash: () => Promise.reject(new Error('gio: no trash on this mount')) });
    await expect(ws.delete('b.txt')).rejects.toMatchObject({ code: 'E_PERMISSION' });
    expect(await readFile(path.join(root, 'b.txt'), 'utf8')).toBe('b\n');
    expect(await records()).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        scope: 'workspace.trash',
        message: expect.stringContaining('the OS trash refused'),
        err: expect.objectContaining({ message: 'gio: no trash on this mount' }),
      }),
    );
  });
});

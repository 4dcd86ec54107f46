import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { KilnError } from '../shared/errors';
import { toWireError } from './errors';

describe('toWireError', () => {
  it('maps a real ENOENT to E_NOT_FOUND without leaking the absolute path', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'kiln-errors-'));
    try {
      const err = await readFile(path.join(dir, 'missing.txt')).catch((e: unknown) => e);
      const wire = toWireError(err);
      expect(wire).toEqual({ code: 'E_NOT_FOUND', message: 'No such file or folder' });
      expect(wire.message).not.toContain(dir);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('keeps a KilnError as it was raised, details included', () => {
    const err = new KilnError('E_PERMISSION', 'There is no trash here', { noTrash: true });
    expect(toWireError(err)).toEqual({
      code: 'E_PERMISSION',
      message: 'There is no trash here',
      details: { noTrash: true },
    });
  });

  it('turns anything else into E_INTERNAL with its message', () => {
    expect(toWireError(new Error('boom'))).toEqual({ code: 'E_INTERNAL', message: 'boom' });
    expect(toWireError('odd')).toEqual({ code: 'E_INTERNAL', message: 'odd' });
    expect(toWireError(Object.assign(new Error('weird'), { code: 'toString' }))).toEqual({
      code: 'E_INTERNAL',
      message: 'weird',
    });
  });
});

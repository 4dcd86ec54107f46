import { readdir } from 'node:fs/promises';
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { readGitOutputViaFile } from './blob-file';

const leftovers = async () => (await readdir(os.tmpdir())).filter((name) => name.startsWith('kiln-git-blob-'));

describe('readGitOutputViaFile', () => {
  it('refuses output over its bound with E_TOO_LARGE and leaves no private folder behind', async () => {
    const before = await leftovers();
    const read = readGitOutputViaFile({
      git: 'git',
      args: ['--version'],
      cwd: os.tmpdir(),
      env: process.env,
      maxBytes: 4,
    });
    await expect(read).rejects.toMatchObject({ code: 'E_TOO_LARGE' });
    expect(await leftovers()).toEqual(before);
  });

  it('reads a git that cannot start as a failed read (null)', async () => {
    const read = readGitOutputViaFile({
      git: '/nonexistent/git',
      args: ['--version'],
      cwd: os.tmpdir(),
      env: process.env,
      maxBytes: 1024,
    });
    expect(await read).toBeNull();
  });
});

import * as fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../test-support/temp-workspace';
import { BackupStore, formatRecord, parseRecord } from './backups';

let data: { dir: string; cleanup: () => Promise<void> };
let store: BackupStore;
beforeEach(async () => {
  data = await makeTempDir('kiln-backups-');
  store = new BackupStore({ dataDir: data.dir, root: '/ws' });
});
afterEach(() => data.cleanup());

const disk = (text: string, hash: string) => async () => ({ text, hash, truncated: false });

describe('backup files', () => {
  it('keep the text as it is after a line of metadata, and still read the first format', async () => {
    const record = {
      path: 'a.txt',
      text: 'kiln-backup 2\n{"x": "\\"quoted\\""}\n\n',
      baseHash: null,
      at: 5,
      version: 'v1',
    };
    const file = formatRecord(record);
    expect(file.endsWith(record.text)).toBe(true);
    expect(parseRecord(file)).toEqual(record);
    expect(parseRecord(JSON.stringify({ path: 'a.txt', text: 'old', baseHash: 'h', at: 1 }))).toMatchObject({
      text: 'old',
    });
    expect(parseRecord('kiln-backup 2\nnot json\ntext')).toBeNull();
    expect(parseRecord('garbage')).toBeNull();

    await store.save({ path: 'a.txt', text: record.text, baseHash: null, version: 'v1' });
    expect(await store.get('a.txt')).toMatchObject({ text: record.text, version: 'v1' });
    const [name] = await fs.readdir(store.dir);
    expect((await fs.stat(path.join(store.dir, name))).mode & 0o777).toBe(0o600);
  });
});

describe('a backup sent as an edit', () => {
  it('applies to the disk text it names by hash, then to the backup it names by version', async () => {
    const first = { path: 'a.txt', baseHash: 'h1', version: 'v1', against: { diskHash: 'h1' }, againstLength: 8 };
    expect(await store.patch({ ...first, start: 4, end: 4, text: 'NEW ' }, disk('one two\n', 'h1'))).toBe(true);
    expect((await store.get('a.txt'))?.text).toBe('one NEW two\n');
    const second = { path: 'a.txt', baseHash: 'h1', version: 'v2', against: { version: 'v1' }, againstLength: 12 };
    expect(await store.patch({ ...second, start: 0, end: 3, text: '1' }, disk('', 'x'))).toBe(true);
    expect(await store.get('a.txt')).toMatchObject({ text: '1 NEW two\n', version: 'v2' });
  });

  it('refuses, writing nothing, when main has not got the base the window edited', async () => {
    const patch = { path: 'a.txt', baseHash: 'h1', version: 'v1', start: 0, end: 0, text: 'x' };
    // The disk moved on; a backup that is not there; lengths that disagree; an edit past the end.
    expect(await store.patch({ ...patch, against: { diskHash: 'h1' }, againstLength: 3 }, disk('new', 'h2'))).toBe(
      false,
    );
    expect(await store.patch({ ...patch, against: { version: 'v0' }, againstLength: 3 }, disk('', ''))).toBe(false);
    expect(await store.patch({ ...patch, against: { diskHash: 'h1' }, againstLength: 4 }, disk('old', 'h1'))).toBe(
      false,
    );
    expect(
      await store.patch({ ...patch, end: 9, against: { diskHash: 'h1' }, againstLength: 3 }, disk('old', 'h1')),
    ).toBe(false);
    expect(await store.get('a.txt')).toBeNull();
  });
});

import { execFile, execFileSync } from 'node:child_process';
import net from 'node:net';
import { chmod, mkdir, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KilnError } from '../../shared/errors';
import { sortEntries } from '../../shared/natural-sort';
import { toWireError } from '../errors';
import { hashText } from './encoding';
import { makeTempTree } from '../../test-support/temp-workspace';
import { Workspace } from './workspace';

let root: string;
let cleanup: () => Promise<void>;
let ws: Workspace;
let trashed: string[];

beforeEach(async () => {
  ({ root, cleanup } = await makeTempTree({
    'README.md': '# hi\n',
    'src/app.py': 'print(1)\n',
    'src/pkg/mod.py': 'X = 1\n',
    'data/a.csv': 'a,b\n',
    '.env': 'SECRET=1\n',
    'empty/': '',
  }));
  trashed = [];
  ws = await Workspace.open({
    root,
    trash: async (abs) => {
      trashed.push(abs);
      await import('node:fs/promises').then((fs) => fs.rm(abs, { recursive: true }));
      return true;
    },
  });
});
afterEach(() => cleanup());

async function code(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'ok';
  } catch (err) {
    return err instanceof KilnError ? err.code : `untyped: ${String(err)}`;
  }
}

/**
 * The error code of a write by a user the folder's permissions apply to. Root passes every permission
 * check, so as root the write runs in a child process that first becomes `nobody`.
 */
async function writeWithoutPrivileges(rel: string, text: string): Promise<string> {
  if (process.getuid?.() !== 0) return code(ws.write(rel, text));
  // nobody must be able to reach the workspace to be refused by the folder, not by the way there.
  await chmod(root, 0o755);
  const here = path.dirname(fileURLToPath(import.meta.url));
  const script = `
    const { Workspace } = await import(${JSON.stringify(path.join(here, 'workspace.ts'))});
    const { toWireError } = await import(${JSON.stringify(path.join(here, '../errors.ts'))});
    process.setgid(65534);
    process.setuid(65534);
    const ws = await Workspace.open({ root: ${JSON.stringify(root)} });
    const outcome = await ws.write(${JSON.stringify(rel)}, ${JSON.stringify(text)}).then(() => 'written', (err) => toWireError(err).code);
    process.stdout.write(JSON.stringify({ uid: process.getuid(), outcome }));
  `;
  const { stdout } = await promisify(execFile)(process.execPath, [
    '--import',
    'tsx',
    '--input-type=module',
    '-e',
    script,
  ]);
  const { uid, outcome } = JSON.parse(stdout) as { uid: number; outcome: string };
  expect(uid).toBe(65534);
  return outcome;
}

async function tempFiles(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((name) => name.startsWith('.kiln-'));
}

describe('list and stat', () => {
  it('lists one level, folders first, hidden only on request', async () => {
    const names = (await ws.list('')).map((e) => `${e.kind}:${e.name}`);
    expect(names).toEqual(['dir:data', 'dir:empty', 'dir:src', 'file:README.md']);
    const withHidden = (await ws.list('', { showHidden: true })).map((e) => e.name);
    expect(withHidden).toContain('.env');
    expect((await ws.list('src')).map((e) => e.path)).toEqual(['src/pkg', 'src/app.py']);
  });

  it('sorts names naturally, like an operator expects', async () => {
    for (const name of [
      'file10.txt',
      'file2.txt',
      'File1.txt',
      'éclair.md',
      'eagle.md',
      'zebra.md',
      'v007.txt',
      'v7b.txt',
    ]) {
      await writeFile(path.join(root, 'empty', name), '');
    }
    expect((await ws.list('empty')).map((e) => e.name)).toEqual([
      'eagle.md',
      'éclair.md',
      'File1.txt',
      'file2.txt',
      'file10.txt',
      'v007.txt',
      'v7b.txt',
      'zebra.md',
    ]);
  });

  it('a big folder listed again shows what changed on disk, in order; a first page is where that order starts', async () => {
    const big = path.join(root, 'empty');
    await Promise.all(Array.from({ length: 1500 }, (_, i) => writeFile(path.join(big, `f${i}.txt`), '')));
    const names = async () => (await ws.list('empty')).map((e) => `${e.kind}:${e.name}`);
    const expected = async () =>
      sortEntries(
        (await readdir(big, { withFileTypes: true })).map((d) => ({
          name: d.name,
          kind: d.isDirectory() ? 'dir' : 'file',
        })),
      ).map((e) => `${e.kind}:${e.name}`);
    expect(await names()).toEqual(await expected());
    // Some come, some go, one file becomes a folder of the same name: the listing must not show the old disk.
    await Promise.all([
      writeFile(path.join(big, 'f15000.txt'), ''),
      writeFile(path.join(big, 'a.txt'), ''),
      rm(path.join(big, 'f7.txt')),
      rm(path.join(big, 'f1499.txt')),
    ]);
    await rm(path.join(big, 'f20.txt'));
    await mkdir(path.join(big, 'f20.txt'));
    const after = await names();
    expect(after).toEqual(await expected());
    expect(after[0]).toBe('dir:f20.txt');
    expect(after).not.toContain('file:f7.txt');
    const page = await ws.listing('empty', { limit: 50 });
    expect(page.total).toBe(1500);
    expect(page.names).toEqual(after.slice(0, 50).map((n) => n.slice(n.indexOf(':') + 1)));
    const middle = await ws.listing('empty', { offset: 50, limit: 500 });
    const rest = await ws.listing('empty', { offset: 550 });
    expect([...page.names, ...middle.names, ...rest.names]).toEqual(after.map((n) => n.slice(n.indexOf(':') + 1)));
  });

  it('stats files and refuses missing paths and files as folders', async () => {
    const entry = await ws.stat('src/app.py');
    expect(entry).toMatchObject({ name: 'app.py', kind: 'file', size: 9 });
    expect(await code(ws.stat('nope'))).toBe('E_NOT_FOUND');
    expect(await code(ws.list('README.md'))).toBe('E_NOT_A_DIRECTORY');
    expect(await code(ws.list('../'))).toBe('E_OUTSIDE_WORKSPACE');
  });
});

describe('read', () => {
  it('reads text with hash and mtime', async () => {
    const file = await ws.read('src/app.py');
    expect(file).toMatchObject({
      text: 'print(1)\n',
      binary: false,
      encoding: 'utf-8',
      size: 9,
      hash: hashText('print(1)\n'),
    });
    expect(file.mtimeMs).toBeGreaterThan(0);
  });

  it('flags binary files and detects other encodings', async () => {
    await writeFile(path.join(root, 'image.bin'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 1, 2]));
    expect(await ws.read('image.bin')).toMatchObject({ binary: true, text: null });
    await writeFile(path.join(root, 'latin.txt'), Buffer.from('caf\xe9\n', 'latin1'));
    expect(await ws.read('latin.txt')).toMatchObject({ text: 'café\n', encoding: 'latin1' });
    await writeFile(path.join(root, 'bom.txt'), Buffer.from('\ufeffhello', 'utf8'));
    expect(await ws.read('bom.txt')).toMatchObject({ text: 'hello', encoding: 'utf-8-bom' });
  });

  it('refuses folders and missing files', async () => {
    expect(await code(ws.read('src'))).toBe('E_IS_A_DIRECTORY');
    expect(await code(ws.read('missing.txt'))).toBe('E_NOT_FOUND');
  });
});

describe('write', () => {
  it('writes atomically, returns the new hash and leaves no temp file', async () => {
    const result = await ws.write('src/app.py', 'print(2)\n');
    expect(result.hash).toBe(hashText('print(2)\n'));
    expect(await readFile(path.join(root, 'src/app.py'), 'utf8')).toBe('print(2)\n');
    expect(await tempFiles(path.join(root, 'src'))).toEqual([]);
  });

  it('keeps the file mode and its encoding', async () => {
    await chmod(path.join(root, 'src/app.py'), 0o751);
    await ws.write('src/app.py', 'x\n');
    expect((await stat(path.join(root, 'src/app.py'))).mode & 0o777).toBe(0o751);
    await writeFile(path.join(root, 'latin.txt'), Buffer.from('caf\xe9', 'latin1'));
    await ws.write('latin.txt', 'déjà');
    expect(await readFile(path.join(root, 'latin.txt'))).toEqual(Buffer.from('déjà', 'latin1'));
  });

  it('detects the encoding on save as read does, also with a character across the 8 KiB mark', async () => {
    const text = `${'a'.repeat(8191)}é\n`;
    await writeFile(path.join(root, 'long.txt'), text);
    expect((await ws.read('long.txt')).encoding).toBe('utf-8');
    await ws.write('long.txt', `${text}ü\n`);
    expect(await readFile(path.join(root, 'long.txt'), 'utf8')).toBe(`${text}ü\n`);
  });

  it('refuses to overwrite a file that changed since it was read', async () => {
    const read = await ws.read('README.md');
    await writeFile(path.join(root, 'README.md'), 'changed elsewhere\n');
    const err = await ws.write('README.md', 'mine\n', { expectedHash: read.hash }).catch((e: KilnError) => e);
    expect((err as KilnError).code).toBe('E_CHANGED_ON_DISK');
    expect(await readFile(path.join(root, 'README.md'), 'utf8')).toBe('changed elsewhere\n');
    await ws.write('README.md', 'mine\n', { expectedHash: hashText('changed elsewhere\n') });
    expect(await readFile(path.join(root, 'README.md'), 'utf8')).toBe('mine\n');
  });

  it('refuses paths outside, missing parents and folders, and changes nothing', async () => {
    expect(await code(ws.write('../escape.txt', 'x'))).toBe('E_OUTSIDE_WORKSPACE');
    expect(await code(ws.write('no/such/dir/file.txt', 'x'))).toBe('E_NOT_FOUND');
    expect(await code(ws.write('src', 'x'))).toBe('E_IS_A_DIRECTORY');
    await ws.write('new/deep/file.txt', 'x', { createParents: true });
    expect(await readFile(path.join(root, 'new/deep/file.txt'), 'utf8')).toBe('x');
  });

  // Root ignores permission bits, so this runs only as an ordinary user.
  it('fails cleanly on a read-only folder and leaves no temp file, even when the tests run as root', async () => {
    await chmod(path.join(root, 'data'), 0o555);
    try {
      expect(await writeWithoutPrivileges('data/a.csv', 'x')).toBe('E_PERMISSION');
    } finally {
      await chmod(path.join(root, 'data'), 0o755);
    }
    expect(await tempFiles(path.join(root, 'data'))).toEqual([]);
    expect(await readFile(path.join(root, 'data/a.csv'), 'utf8')).toBe('a,b\n');
  });
});

describe('create', () => {
  it('creates files and folders and refuses existing names', async () => {
    await ws.createFile('src/new.py', 'y = 2\n');
    expect(await readFile(path.join(root, 'src/new.py'), 'utf8')).toBe('y = 2\n');
    expect(await code(ws.createFile('src/new.py'))).toBe('E_EXISTS');
    await ws.createDir('src/sub');
    expect((await stat(path.join(root, 'src/sub'))).isDirectory()).toBe(true);
    expect(await code(ws.createDir('src/sub'))).toBe('E_EXISTS');
    expect(await code(ws.createFile('missing/x.txt'))).toBe('E_NOT_FOUND');
  });
});

describe('move', () => {
  it('renames and moves files and folders', async () => {
    await ws.move('src/app.py', 'src/main.py');
    await ws.move('src/pkg', 'data/pkg');
    expect(await readFile(path.join(root, 'src/main.py'), 'utf8')).toBe('print(1)\n');
    expect(await readFile(path.join(root, 'data/pkg/mod.py'), 'utf8')).toBe('X = 1\n');
  });

  it('refuses a folder into itself or its descendant', async () => {
    expect(await code(ws.move('src', 'src/inner'))).toBe('E_INTO_SELF');
    expect(await code(ws.move('src', 'src/pkg/deeper'))).toBe('E_INTO_SELF');
    expect(await readFile(path.join(root, 'src/pkg/mod.py'), 'utf8')).toBe('X = 1\n');
  });

  it('refuses an existing target unless overwriting', async () => {
    await writeFile(path.join(root, 'data/app.py'), 'other\n');
    expect(await code(ws.move('src/app.py', 'data/app.py'))).toBe('E_EXISTS');
    expect(await readFile(path.join(root, 'src/app.py'), 'utf8')).toBe('print(1)\n');
    await ws.move('src/app.py', 'data/app.py', { onConflict: 'overwrite' });
    expect(await readFile(path.join(root, 'data/app.py'), 'utf8')).toBe('print(1)\n');
    expect(await ws.exists('src/app.py')).toBe(false);
    expect(await tempFiles(path.join(root, 'data'))).toEqual([]);
    // The replaced file is recoverable: it went to the trash under its own name.
    expect(trashed.map((p) => path.basename(p))).toEqual(['app.py']);
  });

  it('is a no-op onto itself and refuses missing sources and escaping targets', async () => {
    expect(await ws.move('src/app.py', 'src/app.py')).toEqual({ path: 'src/app.py' });
    expect(await code(ws.move('nope.txt', 'x.txt'))).toBe('E_NOT_FOUND');
    expect(await code(ws.move('README.md', '../README.md'))).toBe('E_OUTSIDE_WORKSPACE');
    expect(await code(ws.move('README.md', 'nowhere/README.md'))).toBe('E_NOT_FOUND');
    expect(await ws.exists('README.md')).toBe(true);
  });

  it('refuses to move into a symlinked folder that leads outside', async () => {
    const { root: outside, cleanup: done } = await makeTempTree({});
    await symlink(outside, path.join(root, 'out-link'));
    expect(await code(ws.move('README.md', 'out-link/README.md'))).toBe('E_OUTSIDE_WORKSPACE');
    expect(await readdir(outside)).toEqual([]);
    await done();
  });
});

describe('copy', () => {
  it('duplicates with VS Code naming', async () => {
    expect(await ws.copy('src/app.py', 'src')).toEqual({ path: 'src/app copy.py' });
    expect(await ws.copy('src/app.py', 'src')).toEqual({ path: 'src/app copy 2.py' });
    expect(await ws.copy('src/app.py', 'data')).toEqual({ path: 'data/app.py' });
    expect(await ws.copy('src/pkg', 'src')).toEqual({ path: 'src/pkg copy' });
    expect(await readFile(path.join(root, 'src/pkg copy/mod.py'), 'utf8')).toBe('X = 1\n');
    expect(await ws.copy('.env', '')).toEqual({ path: '.env copy' });
  });

  it('reports progress for folders and leaves nothing behind when cancelled', async () => {
    await mkdir(path.join(root, 'big'));
    for (let i = 0; i < 1200; i++) await writeFile(path.join(root, 'big', `f${i}.txt`), `file ${i}`);
    const progress: number[] = [];
    const cancelling = await Workspace.open({ root });
    cancelling.onDidProgress((p) => {
      progress.push(p.done);
      if (p.done >= 400) cancelling.cancelJob('job-1');
    });
    expect(await code(cancelling.copy('big', 'data', { jobId: 'job-1' }))).toBe('E_CANCELLED');
    expect(progress.length).toBeGreaterThan(1);
    expect(await readdir(path.join(root, 'data'))).toEqual(['a.csv']);
  });
});

describe('delete', () => {
  it('moves to the trash by default', async () => {
    expect(await ws.delete('src/pkg')).toEqual({ trashed: true });
    // Handed over from Kiln's own staging folder at the root, under its own name; the folder is gone after.
    expect(trashed).toHaveLength(1);
    expect(path.dirname(path.dirname(trashed[0]))).toBe(root);
    expect(path.basename(path.dirname(trashed[0]))).toMatch(/^\.kiln-trash-\d+-[0-9a-f]{12}\.tmp$/);
    expect(path.basename(trashed[0])).toBe('pkg');
    expect(await ws.exists('src/pkg')).toBe(false);
    expect(await tempFiles(root)).toEqual([]);
  });

  it('without a trash, refuses unless asked to delete permanently', async () => {
    const noTrash = await Workspace.open({ root, trash: async () => false });
    expect(await code(noTrash.delete('README.md'))).toBe('E_PERMISSION');
    expect(await readFile(path.join(root, 'README.md'), 'utf8')).toBe('# hi\n');
    expect(await tempFiles(root)).toEqual([]);
    expect(await noTrash.delete('README.md', { permanent: true })).toEqual({ trashed: false });
    expect(await noTrash.exists('README.md')).toBe(false);
  });

  it('refuses the root, missing paths and escapes', async () => {
    expect(await code(ws.delete(''))).toBe('E_BAD_REQUEST');
    expect(await code(ws.delete('missing'))).toBe('E_NOT_FOUND');
    expect(await code(ws.delete('../x'))).toBe('E_OUTSIDE_WORKSPACE');
  });

  it('counts what a folder holds', async () => {
    expect(await ws.count('src')).toEqual({ files: 2, dirs: 1 });
  });
});

describe('nextFreeName', () => {
  it('finds the next copy name and guards its name like any path', async () => {
    expect(await ws.nextFreeName('src', 'app.py')).toEqual({ path: 'src/app copy.py' });
    expect(await ws.nextFreeName('src', 'new.py')).toEqual({ path: 'src/new.py' });
    for (const name of ['../../etc/passwd', '..', 'a/b', 'a\\b', '', 'x\0y']) {
      expect(await code(ws.nextFreeName('src', name)), name).toBe('E_OUTSIDE_WORKSPACE');
    }
    expect(await code(ws.nextFreeName('../', 'x'))).toBe('E_OUTSIDE_WORKSPACE');
  });
});

describe('stale temp files', () => {
  it("removes what a killed save left behind and keeps live writers' temps and look-alikes", async () => {
    const { spawnSync } = await import('node:child_process');
    // A pid that certainly exited: a child that ran and was reaped.
    const deadPid = spawnSync('true').pid!;
    const stale = [`.kiln-${deadPid}-0123456789ab.tmp`, 'src/pkg/.kiln-0123456789ab.tmp'];
    const live = `src/.kiln-${process.pid}-0123456789ab.tmp`;
    for (const rel of [...stale, live, 'src/.kiln-notes.tmp']) await writeFile(path.join(root, rel), 'partial');
    await mkdir(path.join(root, `data/.kiln-${deadPid}-abcdefabcdef.tmp`));
    expect((await ws.sweepStaleTemps()).sort()).toEqual([...stale, `data/.kiln-${deadPid}-abcdefabcdef.tmp`].sort());
    expect(await tempFiles(path.join(root, 'src'))).toEqual(
      ['.kiln-notes.tmp', `.kiln-${process.pid}-0123456789ab.tmp`].sort(),
    );
    expect(await tempFiles(root)).toEqual([]);
  });

  it("leaves folders it is told to skip unwalked (the watcher's excludes: .git, node_modules)", async () => {
    const { spawnSync } = await import('node:child_process');
    const deadPid = spawnSync('true').pid!;
    const inSkipped = `node_modules/pkg/.kiln-${deadPid}-0123456789ab.tmp`;
    const inWalked = `src/.kiln-${deadPid}-0123456789ab.tmp`;
    await mkdir(path.join(root, 'node_modules/pkg'), { recursive: true });
    for (const rel of [inSkipped, inWalked]) await writeFile(path.join(root, rel), 'partial');
    expect(await ws.sweepStaleTemps(undefined, (rel) => rel === 'node_modules')).toEqual([inWalked]);
    expect(await readFile(path.join(root, inSkipped), 'utf8')).toBe('partial');
  });

  it("gives back what a dead Kiln's trash holder still holds (killed mid-delete, or restored there by the OS trash)", async () => {
    const { spawnSync } = await import('node:child_process');
    const deadPid = spawnSync('true').pid!;
    const holder = `.kiln-trash-${deadPid}-0123456789ab.tmp`;
    await mkdir(path.join(root, holder, 'results'), { recursive: true });
    await writeFile(path.join(root, holder, 'results', 'run.csv'), 'a,b\n');
    await writeFile(path.join(root, holder, 'README.md'), 'restored\n');
    expect(await ws.sweepStaleTemps()).toEqual([holder]);
    expect(await readFile(path.join(root, 'results', 'run.csv'), 'utf8')).toBe('a,b\n');
    // The root already had a README.md: the recovered one takes the next free name, overwriting nothing.
    expect(await readFile(path.join(root, 'README copy.md'), 'utf8')).toBe('restored\n');
    expect(await tempFiles(root)).toEqual([]);
  });
});

describe('special files and impossible names', () => {
  it('lists FIFOs and sockets as such, and read, write and copy answer E_NOT_REGULAR_FILE at once', async () => {
    execFileSync('mkfifo', [path.join(root, 'data', 'pipe')]);
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(path.join(root, 'data', 'sock'), resolve));
    try {
      const kinds = Object.fromEntries((await ws.list('data')).map((e) => [e.name, e.kind]));
      expect(kinds).toEqual({ 'a.csv': 'file', pipe: 'fifo', sock: 'socket' });
      expect((await ws.stat('data/pipe')).kind).toBe('fifo');
      // Five reads of a FIFO must not hold every I/O thread: later listings must still answer.
      for (let i = 0; i < 5; i++) expect(await code(ws.read('data/pipe'))).toBe('E_NOT_REGULAR_FILE');
      expect(await code(ws.read('data/sock'))).toBe('E_NOT_REGULAR_FILE');
      expect(await code(ws.write('data/pipe', 'x'))).toBe('E_NOT_REGULAR_FILE');
      expect(await code(ws.copy('data/pipe', 'empty'))).toBe('E_NOT_REGULAR_FILE');
      expect(await code(ws.copy('data', 'empty'))).toBe('E_NOT_REGULAR_FILE');
      expect(await readdir(path.join(root, 'empty'))).toEqual([]);
      expect((await ws.list('data')).length).toBe(3);
    } finally {
      server.close();
    }
  });

  it('a name too long for the OS answers E_NAME_TOO_LONG without the absolute path', async () => {
    const long = `${'n'.repeat(300)}.txt`;
    // One at a time: a refusal made before the test awaits it would be an unhandled rejection.
    const attempts = [
      () => ws.read(long),
      () => ws.createFile(`src/${long}`),
      () => ws.write(long, 'x'),
      () => ws.createDir(long),
    ];
    for (const attempt of attempts) {
      const wire = await attempt().then(() => null, toWireError);
      expect(wire?.code).toBe('E_NAME_TOO_LONG');
      expect(wire?.message).not.toContain(root);
    }
  });
});

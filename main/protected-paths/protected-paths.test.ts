import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempTree } from '../../test-support/temp-workspace';
import { normalizeRel, ProtectedPaths } from '.';

let cleanup: (() => Promise<void>) | null = null;
afterEach(async () => {
  await cleanup?.();
  cleanup = null;
});

async function tree(files: Record<string, string> = {}): Promise<string> {
  const made = await makeTempTree(files);
  cleanup = made.cleanup;
  return made.root;
}

describe('normalizeRel', () => {
  it('drops ./, doubled and trailing slashes, and reads backslashes as separators', () => {
    expect(normalizeRel('./.kiln//config.yaml')).toBe('.kiln/config.yaml');
    expect(normalizeRel('.git/')).toBe('.git');
    expect(normalizeRel('.\\.git\\config')).toBe('.git/config');
    expect(normalizeRel('')).toBe('');
  });
});

describe('what agents may not write', () => {
  it('refuses .kiln/**, .git/** and a .git file at any depth, and the audit log; lets the rest be', async () => {
    const protectedPaths = await ProtectedPaths.create({ root: await tree(), homes: [], caseInsensitive: false });
    for (const rel of [
      '.kiln',
      '.kiln/config.yaml',
      './.kiln/prompts/x.md',
      '.git',
      '.git/config',
      '.git/hooks/pre-commit',
      'vendor/lib/.git',
      'vendor/lib/.git/config',
      'scripts',
      'scripts/step_001_load.py',
      'scripts/notes.md',
      'scripts/',
    ])
      expect(protectedPaths.writeRefusal(rel), rel).toEqual(expect.any(String));
    for (const rel of ['src/a.py', '.gitignore', '.kilnrc', 'git/config', 'my-scripts/a.py', 'src/scripts/a.py', ''])
      expect(protectedPaths.writeRefusal(rel), rel).toBeNull();
    // Case counts where the filesystem's names do.
    expect(protectedPaths.writeRefusal('.KILN/config.yaml')).toBeNull();
    // Reading the project's config is fine: only what the sandbox masks is unreadable.
    expect(protectedPaths.readRefusal('.kiln/config.yaml')).toBeNull();
  });

  it('matches without case on a filesystem that does', async () => {
    const protectedPaths = await ProtectedPaths.create({ root: await tree(), homes: [], caseInsensitive: true });
    expect(protectedPaths.writeRefusal('.KILN/Config.yaml')).toEqual(expect.any(String));
    expect(protectedPaths.writeRefusal('Scripts/x.py')).toEqual(expect.any(String));
    expect(protectedPaths.writeRefusal('.Git/config')).toEqual(expect.any(String));
  });

  it('follows a configured audit-log folder', async () => {
    const protectedPaths = await ProtectedPaths.create({
      root: await tree(),
      homes: [],
      scriptsDir: './log/steps/',
      caseInsensitive: false,
    });
    expect(protectedPaths.readOnlyRoots).toEqual(['log/steps', '.kiln', '.git']);
    expect(protectedPaths.writeRefusal('log/steps/step_001_x.py')).toEqual(expect.any(String));
    expect(protectedPaths.writeRefusal('log/other.txt')).toBeNull();
    expect(protectedPaths.writeRefusal('scripts/a.py')).toBeNull();
  });
});

describe('a workspace that is or holds a home, and Kiln data inside it', () => {
  it("masks every hidden entry at each home's top level and the data folder, existing or not", async () => {
    const root = await tree({
      'op/.config/kiln/trusted-folders.json': '{}',
      'op/kiln-data/trusted-folders.json': '{}',
      'op/notes/a.txt': '',
    });
    const home = path.join(root, 'op');
    const protectedPaths = await ProtectedPaths.create({
      root,
      homes: [home, '/nonexistent-home'],
      privatePaths: [path.join(home, 'kiln-data'), path.join(home, '.config/kiln/config.yaml')],
      caseInsensitive: false,
    });
    for (const rel of [
      'op/.ssh/id_rsa',
      'op/.cache/huggingface/token',
      'op/.jupyter/jupyter_server_config.json',
      'op/.local/share/jupyter/runtime/kernel-1.json',
      'op/.kaggle/kaggle.json',
      'op/.ipython/profile_default/startup/x.py',
      'op/.gitconfig',
      'op/.bashrc',
      'op/.tool-nobody-heard-of/key',
      'op/kiln-data/trusted-folders.json',
      'op/kiln-data',
    ]) {
      expect(protectedPaths.readRefusal(rel), rel).toEqual(expect.any(String));
      expect(protectedPaths.writeRefusal(rel), rel).toEqual(expect.any(String));
    }
    for (const rel of ['op', 'op/notes/a.txt', 'op/notes/.hidden-inside', 'other/.ssh/id_rsa', 'op/kiln-data-2'])
      expect(protectedPaths.readRefusal(rel), rel).toBeNull();
    expect((await protectedPaths.maskedEntries()).sort()).toEqual(['op/.config', 'op/kiln-data']);
  });

  it('finds a home or data folder reached through a link, and masks nothing for a workspace inside a home', async () => {
    const root = await tree({ 'real-home/.ssh/id_rsa': 'key', 'real-home/work/a.py': '' });
    mkdirSync(path.join(root, 'links'));
    symlinkSync(path.join(root, 'real-home'), path.join(root, 'links/home'));
    const viaLink = await ProtectedPaths.create({
      root,
      homes: [path.join(root, 'links/home')],
      caseInsensitive: false,
    });
    expect(viaLink.readRefusal('real-home/.ssh/id_rsa')).toEqual(expect.any(String));
    const inside = await ProtectedPaths.create({
      root: path.join(root, 'real-home/work'),
      homes: [path.join(root, 'real-home')],
      caseInsensitive: false,
    });
    expect(inside.readRefusal('.ssh/id_rsa')).toBeNull();
    expect(await inside.maskedEntries()).toEqual([]);
  });

  it('masks the hidden entries of a workspace that is the home itself', async () => {
    const root = await tree({ '.ssh/id_rsa': 'key', 'a.py': '' });
    const protectedPaths = await ProtectedPaths.create({ root, homes: [root], caseInsensitive: false });
    expect(protectedPaths.readRefusal('.ssh/id_rsa')).toEqual(expect.any(String));
    expect(protectedPaths.readRefusal('a.py')).toBeNull();
    expect(await protectedPaths.maskedEntries()).toEqual(['.ssh']);
  });
});

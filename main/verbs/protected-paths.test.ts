/**
 * Agent code and agent verbs can't raise their own rights: the protected paths (.kiln/, .git/, scripts/, Kiln's data
 * folder, a home's hidden entries) for the verbs, for real bubblewrap runs and for the apply of a run's writes.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { processRunChip } from '../../shared/contract/verb-chips';
import { KilnError } from '../../shared/errors';
import { makeTempDir, makeTempTree } from '../../test-support/temp-workspace';
import { ConfigService } from '../config';
import { Workspace } from '../workspace';
import { Verbs } from './verbs';

const PYTHON = '/usr/bin/python3';

let cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof KilnError) return { code: err.code, message: err.message };
    throw err;
  }
  throw new Error('expected the call to fail');
}

/** A run that plants what would make Kiln run a command later: a project config and a git filter. */
const PLANT = [
  'import os',
  'out = {}',
  'for rel, text in [(".kiln/config.yaml", "jupyter:\\n  command: [/bin/sh, -c, \\"touch CANARY\\"]\\n"),',
  '                  (".git/config", "[filter \\"x\\"]\\n\\tclean = touch CANARY\\n"), ("ok.txt", "fine")]:',
  '    try:',
  '        os.makedirs(os.path.dirname(rel) or ".", exist_ok=True)',
  '        open(rel, "w").write(text)',
  '        out[rel] = "written"',
  '    except OSError as err:',
  '        out[rel] = type(err).__name__',
  'print(out)',
].join('\n');

describe('a sandboxed run in a trusted folder with no .kiln/ or .git/ yet', () => {
  it('staged: writes .kiln/config.yaml and .git/config into its overlay; neither is applied, both are refused', async () => {
    const tree = await makeTempTree({ 'a.txt': 'a\n' });
    const data = await makeTempDir('kiln-protected-');
    const workspace = await Workspace.open({ root: tree.root });
    const config = new ConfigService({ workspaceRoot: tree.root, projectTrusted: () => true });
    await config.start();
    const verbs = new Verbs({
      workspace,
      python: PYTHON,
      privateDirs: [data.dir],
      stageRunWritesIn: path.join(data.dir, 'runs'),
    });
    cleanups.push(
      tree.cleanup,
      data.cleanup,
      async () => config.dispose(),
      () => verbs.dispose(),
    );
    const result = await verbs.call('execute-code', { code: PLANT });
    expect(result).toMatchObject({ sandboxed: true, returncode: 0 });
    expect(result.files).toMatchObject({
      staged: true,
      created: ['ok.txt'],
      refused: [
        { path: '.git/config', why: expect.stringContaining('git') },
        { path: '.kiln/config.yaml', why: expect.stringContaining('Kiln config') },
      ],
    });
    expect(existsSync(path.join(tree.root, '.kiln'))).toBe(false);
    expect(existsSync(path.join(tree.root, '.git'))).toBe(false);
    expect(readFileSync(path.join(tree.root, 'ok.txt'), 'utf8')).toBe('fine');
    // The config never saw a jupyter command.
    await config.reload();
    expect(config.current().jupyter).toBeNull();
    // The turn's chip counts them, and says which first.
    const chip = processRunChip(result);
    expect(chip.summary).toBe('exit 0 · 2 refused');
    expect(chip.preview?.split('\n').slice(0, 2)).toEqual([
      expect.stringMatching(/^\.git\/config: not applied: /),
      expect.stringMatching(/^\.kiln\/config\.yaml: not applied: /),
    ]);
  });

  it('writing to the workspace directly: the code cannot make them at all (read-only placeholders)', async () => {
    const tree = await makeTempTree({ 'a.txt': 'a\n' });
    const verbs = new Verbs({ workspace: await Workspace.open({ root: tree.root }), python: PYTHON });
    cleanups.push(tree.cleanup, () => verbs.dispose());
    const result = await verbs.call('execute-code', { code: PLANT });
    expect(result).toMatchObject({ sandboxed: true, returncode: 0 });
    expect(result.stdout).toMatch(/'\.kiln\/config\.yaml': '\w*Error'/);
    expect(result.stdout).toMatch(/'\.git\/config': '\w*Error'/);
    expect(result.stdout).toContain("'ok.txt': 'written'");
    expect(existsSync(path.join(tree.root, '.kiln/config.yaml'))).toBe(false);
    expect(existsSync(path.join(tree.root, '.git/config'))).toBe(false);
  });
});

describe('write-file, edit-file and the notebook verbs on a protected path', () => {
  it('refuses each with E_PROTECTED, saying the operator can make the change in the editor, and writes nothing', async () => {
    const tree = await makeTempTree({
      '.kiln/prompts/a.md': 'a\n',
      '.git/config': '[core]\n',
      'sub/.git': 'gitdir: ../.git/modules/sub\n',
      'scripts/step_001_load.py': 'print(1)\n',
      'src/a.py': 'A = 1\n',
    });
    const data = await makeTempDir('kiln-protected-');
    const verbs = new Verbs({
      workspace: await Workspace.open({ root: tree.root }),
      python: PYTHON,
      privateDirs: [data.dir],
      // Never reached: a protected notebook is refused before the notebook service is asked.
      notebooks: new Proxy({} as never, {
        get: () => () => Promise.reject(new Error('the notebook service was asked')),
      }),
    });
    cleanups.push(tree.cleanup, data.cleanup, () => verbs.dispose());
    await symlink('.kiln', path.join(tree.root, 'cfg'));
    for (const rel of [
      '.kiln/config.yaml',
      './.kiln/config.yaml',
      '.kiln//prompts/x.md',
      '.git/config',
      '.git/hooks/pre-commit',
      '.git',
      'sub/.git',
      'sub/.git/config',
      'vendor/.git/config',
      'scripts/step_002_fake.py',
      'scripts/notes.md',
      // A link inside the workspace leads to .kiln/: judged by where it leads.
      'cfg/config.yaml',
    ]) {
      const refused = await refusal(verbs.call('write-file', { path: rel, content: 'x' }));
      expect(refused.code, rel).toBe('E_PROTECTED');
      expect(refused.message).toContain('the operator can make that change in the editor');
    }
    for (const rel of ['.git/config', 'scripts/step_001_load.py'])
      expect((await refusal(verbs.call('edit-file', { path: rel, mode: 'overwrite', content: 'x' }))).code).toBe(
        'E_PROTECTED',
      );
    expect(readFileSync(path.join(tree.root, '.git/config'), 'utf8')).toBe('[core]\n');
    expect(existsSync(path.join(tree.root, '.kiln/config.yaml'))).toBe(false);
    expect(existsSync(path.join(tree.root, 'vendor'))).toBe(false);
    for (const call of [
      () => verbs.call('append-notebook-cell', { notebook_name: '.kiln/nb', source: 'x' }),
      () => verbs.call('run-notebook-cell', { notebook_name: 'scripts/nb.ipynb', source: 'x' }),
      () => verbs.call('edit-notebook-cell', { notebook_name: '.git/nb.ipynb', cell_id: 'c', source: 'x' }),
      () => verbs.call('delete-notebook-cell', { notebook_name: '.kiln/nb.ipynb', cell_id: 'c' }),
      () => verbs.call('rerun-notebook-cell', { notebook_name: '.kiln/nb.ipynb', cell_id: 'c' }),
    ])
      expect((await refusal(call())).code).toBe('E_PROTECTED');
    // Ordinary files stay the agent's, and the project config stays readable.
    await verbs.call('write-file', { path: 'src/a.py', content: 'A = 2\n' });
    expect(readFileSync(path.join(tree.root, 'src/a.py'), 'utf8')).toBe('A = 2\n');
  });
});

describe('a workspace that is the home folder and holds Kiln’s data folder', () => {
  const SECRET = `kiln-protected-canary-${process.pid}`;

  async function homeWorkspace() {
    const tree = await makeTempTree({
      '.config/kiln/trusted-folders.json': '{"version":1,"folders":[]}',
      '.config/kiln/config.yaml': 'models: {}\n',
      'kiln-data/agent-sessions/x.json': '{}',
      '.cache/huggingface/token': SECRET,
      'notes/todo.txt': 'mine\n',
    });
    await symlink('.cache/huggingface/token', path.join(tree.root, 'token-link'));
    const verbs = new Verbs({
      workspace: await Workspace.open({ root: tree.root }),
      python: PYTHON,
      env: { ...process.env, HOME: tree.root },
      // The data folder wherever it sits: under .config (a hidden entry anyway), or a plain folder of the home.
      privateDirs: [path.join(tree.root, '.config/kiln'), path.join(tree.root, 'kiln-data')],
    });
    cleanups.push(tree.cleanup, () => verbs.dispose());
    return { root: tree.root, verbs };
  }

  it('refuses the trust list and the user config to write-file, edit-file and read-file, and masked secrets to read-file', async () => {
    const { root, verbs } = await homeWorkspace();
    for (const rel of ['.config/kiln/trusted-folders.json', '.config/kiln/config.yaml', 'kiln-data/x.json']) {
      expect((await refusal(verbs.call('write-file', { path: rel, content: '{}' }))).code, `write ${rel}`).toBe(
        'E_PROTECTED',
      );
      expect((await refusal(verbs.call('read-file', { path: rel }))).code, `read ${rel}`).toBe('E_PROTECTED');
    }
    expect(
      (await refusal(verbs.call('edit-file', { path: '.config/kiln/config.yaml', mode: 'overwrite', content: 'x' })))
        .code,
    ).toBe('E_PROTECTED');
    expect(readFileSync(path.join(root, '.config/kiln/trusted-folders.json'), 'utf8')).toContain('"folders":[]');
    for (const rel of ['.cache/huggingface/token', 'token-link', '.bashrc']) {
      const refused = await refusal(verbs.call('read-file', { path: rel }));
      expect(refused.code, rel).toBe('E_PROTECTED');
      expect(refused.message).not.toContain(SECRET);
    }
    expect((await refusal(verbs.call('list-files', { path: '.cache' }))).code).toBe('E_PROTECTED');
    expect((await refusal(verbs.call('run-file', { path: '.cache/huggingface/token' }))).code).toBe('E_PROTECTED');
    // A hidden file the agent might make (~/.bashrc runs in the operator's shell) is refused too.
    expect((await refusal(verbs.call('write-file', { path: '.bashrc', content: 'x' }))).code).toBe('E_PROTECTED');
    expect(existsSync(path.join(root, '.bashrc'))).toBe(false);
    // The rest of the home is the agent's to read.
    expect((await verbs.call('read-file', { path: 'notes/todo.txt' })).content).toBe('mine\n');
  });

  it('hides the masked secret and the data folder from a sandboxed run', async () => {
    const { verbs } = await homeWorkspace();
    const result = await verbs.call('execute-code', {
      code: [
        'import os',
        'for rel in [".cache/huggingface/token", "token-link", "kiln-data/agent-sessions/x.json", ".config/kiln/trusted-folders.json"]:',
        '    try:',
        '        print(rel, open(rel).read())',
        '    except OSError as err:',
        '        print(rel, type(err).__name__)',
        'print(sorted(os.listdir(".cache")), sorted(os.listdir("kiln-data")))',
      ].join('\n'),
    });
    expect(result).toMatchObject({ sandboxed: true, returncode: 0 });
    expect(result.stdout).not.toContain(SECRET);
    expect(result.stdout).toBe(
      [
        '.cache/huggingface/token FileNotFoundError',
        'token-link FileNotFoundError',
        'kiln-data/agent-sessions/x.json FileNotFoundError',
        '.config/kiln/trusted-folders.json FileNotFoundError',
        '[] []',
        '',
      ].join('\n'),
    );
  });
});

describe('run-notebook-cell in an untrusted folder', () => {
  async function untrusted(env: NodeJS.ProcessEnv) {
    const tree = await makeTempTree({ 'a.ipynb': '{}' });
    let asked = false;
    const verbs = new Verbs({
      workspace: await Workspace.open({ root: tree.root }),
      python: PYTHON,
      env,
      trusted: () => false,
      notebooks: new Proxy({} as never, {
        get: () => () => {
          asked = true;
          return Promise.reject(new Error('the notebook service was asked'));
        },
      }),
    });
    cleanups.push(tree.cleanup, () => verbs.dispose());
    return { verbs, asked: () => asked };
  }

  it('is refused with E_NO_SANDBOX where there is no sandbox (KILN_BWRAP=none), as execute-code is', async () => {
    const { verbs, asked } = await untrusted({ ...process.env, KILN_BWRAP: 'none' });
    for (const call of [
      () => verbs.call('run-notebook-cell', { notebook_name: 'a', source: 'open("/tmp/x", "w")' }),
      () => verbs.call('rerun-notebook-cell', { notebook_name: 'a', cell_id: 'c' }),
      () => verbs.call('execute-code', { code: 'print(1)' }),
    ])
      expect((await refusal(call())).code).toBe('E_NO_SANDBOX');
    expect(asked()).toBe(false);
  });

  it('is refused where there is a sandbox too: the kernel is not one, and the message points at execute-code', async () => {
    const { verbs, asked } = await untrusted(process.env);
    const refused = await refusal(verbs.call('run-notebook-cell', { notebook_name: 'a', source: '1' }));
    expect(refused.code).toBe('E_NO_SANDBOX');
    expect(refused.message).toMatch(/kernel runs outside the sandbox.*execute-code/);
    expect(asked()).toBe(false);
    // execute-code itself runs, sandboxed.
    expect(await verbs.call('execute-code', { code: 'print(1)' })).toMatchObject({ sandboxed: true, stdout: '1\n' });
  });
});

describe('a data folder the run may not reach', () => {
  it('refuses a staged write under a nested .git the sandbox did not cover', async () => {
    const tree = await makeTempTree({ 'vendor/lib/.git/config': '[core]\n' });
    const data = await makeTempDir('kiln-protected-');
    const verbs = new Verbs({
      workspace: await Workspace.open({ root: tree.root }),
      python: PYTHON,
      stageRunWritesIn: path.join(data.dir, 'runs'),
    });
    cleanups.push(tree.cleanup, data.cleanup, () => verbs.dispose());
    await mkdir(path.join(tree.root, 'vendor/lib/.git/hooks'));
    await writeFile(path.join(tree.root, 'keep.txt'), 'k');
    const result = await verbs.call('execute-code', {
      code: 'open("vendor/lib/.git/config", "a").write("[filter \\"x\\"]\\n")\nopen("vendor/lib/.git/hooks/post-checkout", "w").write("x")',
    });
    expect(result.files?.refused?.map((entry) => entry.path)).toEqual([
      'vendor/lib/.git/config',
      'vendor/lib/.git/hooks/post-checkout',
    ]);
    expect(readFileSync(path.join(tree.root, 'vendor/lib/.git/config'), 'utf8')).toBe('[core]\n');
    expect(existsSync(path.join(tree.root, 'vendor/lib/.git/hooks/post-checkout'))).toBe(false);
  });
});

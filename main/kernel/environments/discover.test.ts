import { chmod, mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../../test-support/temp-workspace';
import { condaEnvironmentDirs, findCondaEnvironments, findWorkspaceEnvironments, parsePyvenvCfg } from './discover';

const temps: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of temps.splice(0)) await cleanup();
});

async function temp(prefix: string): Promise<string> {
  const { dir, cleanup } = await makeTempDir(prefix);
  temps.push(cleanup);
  return dir;
}

/** A venv's shape on disk (no interpreter is run here: a shell script stands in for it). */
async function fakeVenv(dir: string, cfg: string, options: { ipykernel?: boolean; lib?: string } = {}) {
  await mkdir(path.join(dir, 'bin'), { recursive: true });
  await writeFile(path.join(dir, 'bin', 'python'), '#!/bin/sh\nexit 1\n');
  await chmod(path.join(dir, 'bin', 'python'), 0o755);
  await writeFile(path.join(dir, 'pyvenv.cfg'), cfg);
  const site = path.join(dir, 'lib', options.lib ?? 'python3.12', 'site-packages');
  await mkdir(site, { recursive: true });
  if (options.ipykernel) {
    await mkdir(path.join(site, 'ipykernel'));
    await writeFile(path.join(site, 'ipykernel', '__init__.py'), '');
  }
}

describe('environment discovery', () => {
  it('reads pyvenv.cfg as site.py does', () => {
    const cfg = parsePyvenvCfg(
      'home = /usr/bin\r\nInclude-System-Site-Packages = true\nversion_info = 3.12.1.final.0\n',
    );
    expect(cfg.get('home')).toBe('/usr/bin');
    expect(cfg.get('include-system-site-packages')).toBe('true');
    expect(cfg.get('version_info')).toBe('3.12.1.final.0');
  });

  it('finds venvs one level down by pyvenv.cfg, whatever their name, never deeper and never through a symlink', async () => {
    const root = await temp('kiln-envs-ws-');
    const outside = await temp('kiln-envs-outside-');
    await fakeVenv(path.join(root, '.venv'), 'home = /nowhere/bin\nversion = 3.12.3\n', { ipykernel: true });
    await fakeVenv(path.join(root, 'tools-env'), 'home = /nowhere/bin\nversion_info = 3.12.1\n');
    await fakeVenv(path.join(root, 'deep', 'venv'), 'home = /nowhere/bin\nversion = 3.12.0\n', { ipykernel: true });
    await fakeVenv(path.join(outside, 'linked'), 'home = /nowhere/bin\nversion = 3.10.0\n', { ipykernel: true });
    await symlink(path.join(outside, 'linked'), path.join(root, 'linked'));
    // No interpreter: not an environment a kernel can start from.
    await mkdir(path.join(root, 'broken'));
    await writeFile(path.join(root, 'broken', 'pyvenv.cfg'), 'version = 3.11.0\n');

    const found = await findWorkspaceEnvironments(root, outside);
    expect(found.map((e) => [path.basename(e.dir), e.version, e.hasIpykernel])).toEqual([
      ['.venv', '3.12.3', true],
      ['tools-env', '3.12.1', false],
    ]);
    expect(found[0].python).toBe(path.join(root, '.venv', 'bin', 'python'));
  });

  it("sees the base interpreter's packages only in a --system-site-packages venv (home's prefix, Debian's dist-packages)", async () => {
    const root = await temp('kiln-envs-ws-');
    const base = await temp('kiln-envs-base-');
    await mkdir(path.join(base, 'bin'));
    await mkdir(path.join(base, 'lib', 'python3', 'dist-packages', 'ipykernel'), { recursive: true });
    await writeFile(path.join(base, 'lib', 'python3', 'dist-packages', 'ipykernel', '__init__.py'), '');
    const home = path.join(base, 'bin');
    await fakeVenv(
      path.join(root, 'shared'),
      `home = ${home}\ninclude-system-site-packages = true\nversion = 3.12.3\n`,
    );
    await fakeVenv(
      path.join(root, 'isolated'),
      `home = ${home}\ninclude-system-site-packages = false\nversion = 3.12.3\n`,
    );
    const found = await findWorkspaceEnvironments(root, root);
    expect(Object.fromEntries(found.map((e) => [path.basename(e.dir), e.hasIpykernel]))).toEqual({
      isolated: false,
      shared: true,
    });
  });

  it("lists conda's environments from `conda env list --json`, else from ~/.conda/environments.txt, with conda-meta's version", async () => {
    const home = await temp('kiln-envs-home-');
    const envDir = path.join(home, 'miniconda3', 'envs', 'science');
    await mkdir(path.join(envDir, 'conda-meta'), { recursive: true });
    await writeFile(path.join(envDir, 'conda-meta', 'python-3.11.9-h955ad1f_0.json'), '{}');
    await mkdir(path.join(envDir, 'bin'));
    await writeFile(path.join(envDir, 'bin', 'python'), '');
    await mkdir(path.join(envDir, 'lib', 'python3.11', 'site-packages', 'ipykernel'), { recursive: true });
    await writeFile(path.join(envDir, 'lib', 'python3.11', 'site-packages', 'ipykernel', '__init__.py'), '');
    await mkdir(path.join(home, '.conda'));
    await writeFile(path.join(home, '.conda', 'environments.txt'), `${envDir}\n/gone/env\n`);

    // No conda on PATH: the file.
    const noConda = { PATH: path.join(home, 'empty-bin') };
    expect(await condaEnvironmentDirs(noConda, home)).toEqual([envDir, '/gone/env']);
    const found = await findCondaEnvironments(noConda, home);
    expect(found).toEqual([
      { kind: 'conda', dir: envDir, python: path.join(envDir, 'bin', 'python'), version: '3.11.9', hasIpykernel: true },
    ]);

    // conda on PATH: its own answer (a real process printing what conda prints).
    const bin = path.join(home, 'bin');
    await mkdir(bin);
    const other = path.join(home, 'other');
    await writeFile(path.join(bin, 'conda'), `#!/bin/sh\necho '{"envs": ["${other}"]}'\n`);
    await chmod(path.join(bin, 'conda'), 0o755);
    expect(await condaEnvironmentDirs({ PATH: bin }, home)).toEqual([other]);
  });
});

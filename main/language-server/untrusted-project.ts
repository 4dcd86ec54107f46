import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * Pyright in an untrusted workspace. Pyright reads its project config (`pyrightconfig.json`, or `[tool.pyright]` in
 * `pyproject.toml`) from its workspace folder, and the file's `venvPath`, `venv`, `extraPaths`, execution
 * environments and the like win over what the client sends: a cloned project could point pyright at an interpreter
 * or paths of its choosing. Untrusted, the server's workspace folder is a folder in Kiln's data dir holding a config
 * Kiln writes: the project's files are still analysed (the config includes the workspace and makes it the execution
 * root, so imports resolve as before), but the project's own config file is never read.
 */
export async function writeUntrustedProject(options: {
  /** The workspace root (absolute). */
  root: string;
  /** Kiln's language-server folder in its data dir. */
  dir: string;
  /** Kiln's own extra paths (the workspace's src/, read for analysis only). */
  extraPaths: string[];
  /** An empty folder: the venvPath, so no project environment is found. */
  venvPath: string;
}): Promise<string> {
  const id = createHash('sha256').update(options.root).digest('hex').slice(0, 16);
  const project = path.join(options.dir, 'untrusted-projects', id);
  await mkdir(project, { recursive: true });
  // Pyright takes only relative paths in `include` (relative to the config's folder); the rest follow suit.
  const rel = (abs: string) => path.relative(project, abs).split(path.sep).join('/') || '.';
  const workspace = rel(options.root);
  const extraPaths = options.extraPaths.map(rel);
  const config = {
    include: [workspace],
    // Pyright's default excludes, for the workspace (they would otherwise apply under this folder only).
    exclude: ['**/node_modules', '**/__pycache__', '**/.*'].map((pattern) => `${workspace}/${pattern}`),
    extraPaths,
    venvPath: options.venvPath,
    executionEnvironments: [{ root: workspace, extraPaths }],
  };
  await writeFile(path.join(project, 'pyrightconfig.json'), `${JSON.stringify(config, null, 2)}\n`);
  return project;
}

import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const SOURCES = ['main', 'preload', 'renderer', 'shared', 'electron.vite.config.ts', 'package-lock.json'];
const OUTPUTS = [
  'out/main/electron.js',
  'out/main/web.js',
  'out/main/mcp.js',
  'out/preload/index.cjs',
  'out/renderer/index.html',
];

function newestMtime(target) {
  const info = statSync(target, { throwIfNoEntry: false });
  if (!info) return 0;
  if (!info.isDirectory()) return info.mtimeMs;
  let newest = 0;
  for (const name of readdirSync(target)) {
    if (name === 'node_modules') continue;
    newest = Math.max(newest, newestMtime(path.join(target, name)));
  }
  return newest;
}

/**
 * Runs the electron-vite build when any output is missing or older than the sources.
 * `toStderr`: say so (and let the build speak) on stderr only, for callers whose stdout is a protocol (MCP).
 */
export function buildIfNeeded({ toStderr = false } = {}) {
  const oldestOutput = Math.min(
    ...OUTPUTS.map((o) => statSync(path.join(REPO, o), { throwIfNoEntry: false })?.mtimeMs ?? 0),
  );
  const newestSource = Math.max(...SOURCES.map((s) => newestMtime(path.join(REPO, s))));
  if (oldestOutput > newestSource) return;
  (toStderr ? console.error : console.log)('Kiln: building…');
  const result = spawnSync(
    process.execPath,
    [path.join(REPO, 'node_modules/electron-vite/bin/electron-vite.js'), 'build', '--logLevel', 'warn'],
    {
      cwd: REPO,
      stdio: toStderr ? ['ignore', 2, 2] : 'inherit',
    },
  );
  if (result.status !== 0) process.exit(result.status ?? 1);
}

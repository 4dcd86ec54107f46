import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import path from 'node:path';
import { ENVIRONMENT_KERNELSPEC_PREFIX } from '../../../shared/contract';
import type { FoundEnvironment } from './discover';

/** The kernelspec name of an environment folder: stable for its path, so a notebook's metadata names it again next time. */
export function environmentKernelspecName(dir: string): string {
  return `${ENVIRONMENT_KERNELSPEC_PREFIX}${createHash('sha256').update(dir).digest('hex').slice(0, 12)}`;
}

/** `Python 3.11.2 (.venv)`: what the picker and the notebook's metadata call it. */
export function environmentDisplayName(env: Pick<FoundEnvironment, 'version'>, label: string): string {
  return `Python${env.version ? ` ${env.version}` : ''} (${label})`;
}

/** Python 3.11 and later have `-P` (nothing from the working folder on sys.path); an unknown version goes without. */
function hasSafePathOption(version: string | null): boolean {
  const match = /^(\d+)\.(\d+)/.exec(version ?? '');
  if (!match) return false;
  const [major, minor] = [Number(match[1]), Number(match[2])];
  return major > 3 || (major === 3 && minor >= 11);
}

/**
 * The kernelspec that starts a kernel from the environment: its own interpreter by absolute path, through Kiln's
 * launcher (see kernelspecs.ts), never `-m ipykernel_launcher` resolved from the notebook's folder.
 */
export function environmentKernelspec(
  env: FoundEnvironment,
  options: { launcher: string; displayName: string },
): Record<string, unknown> {
  return {
    argv: [env.python, ...(hasSafePathOption(env.version) ? ['-P'] : []), options.launcher, '-f', '{connection_file}'],
    display_name: options.displayName,
    language: 'python',
    metadata: { debugger: true, kiln: { environment: env.dir } },
  };
}

/** Writes (or rewrites) the environment's kernelspec into a kernels folder; the server reads it at the next request. */
export async function writeEnvironmentKernelspec(
  kernelsDir: string,
  name: string,
  spec: Record<string, unknown>,
): Promise<void> {
  const target = path.join(kernelsDir, name);
  await fs.mkdir(target, { recursive: true });
  await fs.writeFile(path.join(target, 'kernel.json'), `${JSON.stringify(spec, null, 1)}\n`);
}

import { constants as fsConstants } from 'node:fs';
import * as fs from 'node:fs/promises';
import path from 'node:path';

async function isExecutable(file: string): Promise<boolean> {
  try {
    const info = await fs.stat(file);
    if (!info.isFile()) return false;
    await fs.access(file, fsConstants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Finds an executable by name on PATH (every directory, in order), as a shell would; a name with a
 * slash is checked as is. Null when there is none, so a feature can tell up front whether it has its tool.
 */
export async function findExecutable(name: string, envPath: string | undefined): Promise<string | null> {
  if (name.includes('/') || name.includes(path.sep)) return (await isExecutable(name)) ? path.resolve(name) : null;
  const exts = process.platform === 'win32' ? ['.exe', '.cmd', '.bat', ''] : [''];
  for (const dir of (envPath ?? '').split(path.delimiter)) {
    if (!dir) continue;
    for (const ext of exts) {
      const candidate = path.join(dir, name + ext);
      if (await isExecutable(candidate)) return candidate;
    }
  }
  return null;
}

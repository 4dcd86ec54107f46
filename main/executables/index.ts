import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Finds a program on PATH the way a shell would (PATHEXT on Windows), so a feature can tell up front
 * whether it has its tool. Null when there is none.
 */
export function findExecutable(name: string, envPath = process.env.PATH ?? ''): string | null {
  const exts = process.platform === 'win32' ? (process.env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';') : [''];
  for (const dir of envPath.split(path.delimiter)) {
    if (!dir) continue;
    for (const ext of exts) {
      const candidate = path.join(dir, name + ext);
      try {
        accessSync(candidate, constants.X_OK);
        if (statSync(candidate).isFile()) return candidate;
      } catch {
        // not here
      }
    }
  }
  return null;
}

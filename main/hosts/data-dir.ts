import { chmod, mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/**
 * The app's data folder (prefs, the assistants' sessions, private Jupyter dirs). KILN_DATA_DIR overrides it,
 * which tests use to start from a clean slate.
 */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.KILN_DATA_DIR) return path.resolve(env.KILN_DATA_DIR);
  const home = env.HOME || os.homedir();
  switch (process.platform) {
    case 'darwin':
      return path.join(home, 'Library', 'Application Support', 'Kiln');
    case 'win32':
      return path.join(env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), 'Kiln');
    default:
      return path.join(env.XDG_CONFIG_HOME || path.join(home, '.config'), 'Kiln');
  }
}

/** Creates the data folder for the owner alone (0700): sessions in it hold the contents of files. */
export async function ensureDataDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
}

/**
 * The data folder every Kiln process uses (the app, the web host, the MCP server), made private before anything
 * is written in it: whichever runs first creates it 0700, and what Kiln writes there is 0600.
 */
export async function openDataDir(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const dir = defaultDataDir(env);
  await ensureDataDir(dir);
  return dir;
}

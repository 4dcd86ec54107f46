import type { RemoteJupyter } from './jupyter-server';

/** The `jupyter:` config block, as main/config resolves it. */
export interface JupyterSourceSetting {
  command?: string[];
  url?: string;
  tokenEnv?: string;
}

/**
 * Where Jupyter comes from, as operators set it: the config's remote URL (its token read from the
 * named environment variable), else its command, else nothing (meaning `jupyter` on PATH).
 */
export function jupyterSource(
  setting: JupyterSourceSetting | null | undefined,
  env: NodeJS.ProcessEnv = process.env,
): { command?: string[]; remote?: RemoteJupyter } {
  if (setting?.url)
    return { remote: { url: setting.url, token: setting.tokenEnv ? (env[setting.tokenEnv] ?? '') : '' } };
  if (setting?.command) return { command: setting.command };
  return {};
}

/** Names passed into a run from Kiln's environment when set: nothing that could hold a key, token or password. */
export const ENV_ALLOWLIST = ['PATH', 'LANG', 'LANGUAGE', 'TERM', 'TZ'] as const;

/**
 * The environment of agent code: the allowlist, `LC_*`, the names the trusted project config lists
 * (`sandbox.env`), then Kiln's own settings (HOME, PYTHONPATH with src/, unbuffered UTF-8 output). Everything else
 * (API keys, tokens, the Jupyter token) stays out.
 */
export function sandboxEnv(
  base: Readonly<Record<string, string | undefined>>,
  options: { extraNames: readonly string[]; set: Readonly<Record<string, string>> },
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined) continue;
    const allowed =
      (ENV_ALLOWLIST as readonly string[]).includes(name) ||
      name.startsWith('LC_') ||
      options.extraNames.includes(name);
    if (allowed) env[name] = value;
  }
  env.PATH ??= '/usr/local/bin:/usr/bin:/bin';
  return { ...env, ...options.set };
}

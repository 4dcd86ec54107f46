// `npm start -- [folder]`: builds if needed and launches Electron. Where the Electron runtime can't be
// obtained (its binary downloads on first run), falls back to the web host and says so in one line.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { buildIfNeeded, REPO } from './build-if-needed.mjs';

buildIfNeeded();
const args = process.argv.slice(2);

function electronBinary() {
  // Resolving the package triggers its first-run download; give it a bounded time in a child process.
  const probe = spawnSync(process.execPath, ['-e', "process.stdout.write(require('electron'))"], {
    cwd: REPO,
    encoding: 'utf8',
    timeout: 180_000,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const binary = probe.status === 0 ? probe.stdout.trim().split('\n').pop() : '';
  if (binary && existsSync(binary)) return { binary };
  const lines = `${probe.stderr}\n${probe.stdout}`.split('\n').map((l) => l.trim());
  const download = lines.find((l) => /fetch failed|ENOTFOUND|ECONNREFUSED|EAI_AGAIN|timed? ?out/i.test(l));
  const why = download
    ? `its download failed: ${download}`
    : (lines.find((l) => l.startsWith('Error:')) ?? 'unknown error');
  return { error: probe.error?.code === 'ETIMEDOUT' ? 'its download timed out' : why.slice(0, 160) };
}

function findChromium() {
  for (const name of ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable']) {
    const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).stdout.trim();
    if (found) return found;
  }
  return null;
}

function lastWorkspace() {
  const dataDir =
    process.env.KILN_DATA_DIR ??
    path.join(process.env.XDG_CONFIG_HOME ?? path.join(process.env.HOME ?? '', '.config'), 'Kiln');
  try {
    return JSON.parse(readFileSync(path.join(dataDir, 'prefs.json'), 'utf8')).lastWorkspace ?? null;
  } catch {
    return null;
  }
}

const electron = electronBinary();
if (electron.binary) {
  const child = spawn(electron.binary, [REPO, ...args], { stdio: 'inherit' });
  child.on('exit', (code) => process.exit(code ?? 0));
} else {
  const folder = args.find((a) => !a.startsWith('-')) ?? lastWorkspace() ?? process.cwd();
  console.log(`Kiln: the Electron runtime could not be obtained (${electron.error}); starting the web host instead.`);
  const host = spawn(
    process.execPath,
    [path.join(REPO, 'out/main/web.js'), folder, ...args.filter((a) => a.startsWith('-'))],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const chromium = process.env.DISPLAY || process.env.WAYLAND_DISPLAY ? findChromium() : null;
  let opened = false;
  host.stdout.on('data', (chunk) => {
    process.stdout.write(chunk);
    const url = /Kiln web host: (\S+)/.exec(String(chunk))?.[1];
    if (url && chromium && !opened) {
      opened = true;
      spawn(chromium, [`--app=${url}`, '--no-first-run', '--disable-background-networking'], {
        stdio: 'ignore',
        detached: true,
      }).unref();
    }
  });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => host.kill(signal));
  host.on('exit', (code) => process.exit(code ?? 0));
}

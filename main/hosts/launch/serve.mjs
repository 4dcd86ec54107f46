// `npm run serve -- <folder> [--port N]`: the web host, building first if needed.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { buildIfNeeded, REPO } from './build-if-needed.mjs';

buildIfNeeded();
const child = spawn(process.execPath, [path.join(REPO, 'out/main/web.js'), ...process.argv.slice(2)], {
  stdio: 'inherit',
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code) => process.exit(code ?? 0));

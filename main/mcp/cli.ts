/**
 * The MCP server's entry (built to out/main/mcp.js, run with plain node):
 *   node out/main/mcp.js /path/to/workspace [--python /usr/bin/python3] [--jupyter /usr/bin/jupyter]
 * `npm run --silent mcp -- <folder>` builds if needed and runs it; the packaged app serves the same with
 * `kiln --mcp <folder>`. Jupyter is found as the app finds it: --jupyter, else the jupyter: block of
 * .kiln/config.yaml, else PATH. Diagnostics go to stderr; stdout carries the protocol.
 */
import { MCP_USAGE, parseMcpArguments, serveMcpOverStdio } from './serve';

const argv = process.argv.slice(2);
if (argv.includes('--help') || argv.includes('-h')) {
  process.stderr.write(`usage: node out/main/mcp.js ${MCP_USAGE}\n`);
  process.exit(0);
}
// Under `npm run`, the script runs in the package folder; a relative workspace means the caller's folder.
const cwd = process.env.INIT_CWD ?? process.cwd();
Promise.resolve()
  .then(() => serveMcpOverStdio(parseMcpArguments(argv), { cwd, exit: (code) => process.exit(code) }))
  .catch((err: unknown) => {
    process.stderr.write(
      `kiln mcp: ${err instanceof Error ? err.message : String(err)}\nusage: node out/main/mcp.js ${MCP_USAGE}\n`,
    );
    process.exit(1);
  });

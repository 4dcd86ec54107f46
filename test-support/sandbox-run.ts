/**
 * Runs one `execute-code` through the verbs, sandboxed as Kiln would, and prints the result as JSON: the way a
 * test runs agent code as another user (`setpriv … node --import tsx test-support/sandbox-run.ts <workspace>`,
 * the code on stdin), where the kernel applies RLIMIT_NPROC as it does not to root. A second argument stages the
 * run's writes in that folder (an overlay, applied through the workspace when the run ends); a third names the
 * Agent turn the run belongs to.
 */
import { withWriteCause } from '../main/history';
import { Verbs } from '../main/verbs';
import { Workspace } from '../main/workspace';

const [root, stageRunWritesIn, turn] = process.argv.slice(2);
if (!root) {
  process.stderr.write('usage: sandbox-run.ts <workspace> [staging folder] < code.py\n');
  process.exit(2);
}
const chunks: Buffer[] = [];
for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
const verbs = new Verbs({ workspace: await Workspace.open({ root }), python: '/usr/bin/python3', stageRunWritesIn });
try {
  const code = Buffer.concat(chunks).toString('utf8');
  const result = await withWriteCause(turn ? { agentSession: 'agent', turn } : {}, () =>
    verbs.call('execute-code', { code }),
  );
  process.stdout.write(`${JSON.stringify({ uid: process.getuid?.(), result })}\n`);
} finally {
  await verbs.dispose();
}

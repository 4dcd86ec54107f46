import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Sandbox } from '../main/sandbox';
import { Verbs } from '../main/verbs';
import { Workspace } from '../main/workspace';
import { median, report, type BenchResult } from './support';

const RUNS = 21;
const PYTHON = '/usr/bin/python3';

/**
 * What the sandbox adds to a run: `run-file` of an empty script through the verbs (step logged, process run,
 * result read; sandboxed, its writes staged in an overlay and applied as the app does), sandboxed against the same verb with no sandbox, samples interleaved. Target: at most 1.3x, or at
 * most 30 ms added, whichever allows more.
 */
export async function runSandboxBench(): Promise<BenchResult | null> {
  const sandbox = new Sandbox();
  const status = await sandbox.status();
  if (!status.available) {
    console.log(`sandbox: skipped, ${status.reason}`);
    return null;
  }
  const root = await mkdtemp(path.join(os.tmpdir(), 'kiln-bench-sandbox-'));
  await mkdir(path.join(root, 'src'));
  await writeFile(path.join(root, 'src/empty.py'), '');
  const workspace = await Workspace.open({ root });
  // As the app runs code: its writes staged in an overlay (in a private folder) and applied when it ends.
  const staging = await mkdtemp(path.join(os.tmpdir(), 'kiln-bench-runs-'));
  const sandboxed = new Verbs({ workspace, python: PYTHON, sandbox, stageRunWritesIn: staging });
  // The same sandbox without the overlay: what staging adds is told apart from what bubblewrap costs.
  const bwrapOnly = new Verbs({ workspace, python: PYTHON, sandbox });
  const plain = new Verbs({
    workspace,
    python: PYTHON,
    sandbox: new Sandbox({ env: { ...process.env, KILN_BWRAP: 'none' } }),
  });
  const time = async (verbs: Verbs, expectSandboxed: boolean) => {
    const start = performance.now();
    const result = await verbs.call('run-file', { path: 'src/empty.py' });
    const ms = performance.now() - start;
    if (result.returncode !== 0 || result.sandboxed !== expectSandboxed)
      throw new Error(`unexpected run: ${JSON.stringify(result)}`);
    return ms;
  };
  // Warm both paths once (the interpreter's folders are found on the first sandboxed run).
  await time(sandboxed, true);
  await time(plain, false);
  await time(bwrapOnly, true);
  const kiln: number[] = [];
  const baseline: number[] = [];
  const withoutOverlay: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    baseline.push(await time(plain, false));
    kiln.push(await time(sandboxed, true));
    withoutOverlay.push(await time(bwrapOnly, true));
  }
  console.log(
    `sandbox: medians: unsandboxed ${median(baseline).toFixed(1)} ms, bubblewrap alone ${median(withoutOverlay).toFixed(1)} ms, bubblewrap over the overlay ${median(kiln).toFixed(1)} ms`,
  );
  await bwrapOnly.dispose();
  await sandboxed.dispose();
  await plain.dispose();
  await rm(root, { recursive: true, force: true });
  await rm(staging, { recursive: true, force: true });
  const result = {
    name: `sandbox: run-file of an empty script, sandboxed vs unsandboxed, median of ${RUNS}`,
    kiln: median(kiln),
    baseline: median(baseline),
    unit: 'ms',
  };
  // The target: ≤ 1.3x or ≤ 30 ms added, whichever is larger.
  report(result, { ratio: 1.3, orOverBaseline: 30 });
  return result;
}

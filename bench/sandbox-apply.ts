import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { historyCreationRecorder, historyRecorder, HistoryStore, withWriteCause } from '../main/history';
import { Sandbox } from '../main/sandbox';
import { Verbs } from '../main/verbs';
import { Workspace } from '../main/workspace';
import { median, report } from './support';

const FILES = 2000;
const RUNS = 3;
const PYTHON = '/usr/bin/python3';
const CODE = [
  'import os',
  "os.makedirs('out', exist_ok=True)",
  `for i in range(${FILES}):`,
  "    open(f'out/f{i:05}.txt', 'w').write(f'file {i}\\n' * 40)",
].join('\n');

/**
 * Applying what a run wrote: `execute-code` that writes 2,000 small files (1 KB each), sandboxed, its writes staged
 * in an overlay and applied through the workspace with local history as an Agent turn (each file recorded as
 * created, in one history pack; the change feed told of each), timed from the verb call to its result (the apply
 * included, the run folder's removal after it not); against the same call running the same code writing the same
 * 2,000 files with the same bytes straight to the workspace (`KILN_RUN_OVERLAY=none`, nothing to apply), timed the
 * same way. After each sample (untimed) both sides are checked to have left the same 2,000 files, byte for byte.
 * Each sample in a fresh workspace and data folder, interleaved. Target ≤ 3x.
 */
export async function runSandboxApplyBench(): Promise<void> {
  const probe = await new Sandbox().status();
  if (!probe.available) {
    console.log(`sandbox-apply: skipped, ${probe.reason}`);
    return;
  }
  const staged: number[] = [];
  const direct: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    direct.push(await timeRun(false));
    staged.push(await timeRun(true));
  }
  report(
    {
      name: `sandbox-apply: a run writing ${FILES} small files, staged and applied with history vs written directly, median of ${RUNS}`,
      kiln: median(staged),
      baseline: median(direct),
      unit: 'ms',
    },
    { ratio: 3 },
  );
}

async function timeRun(stage: boolean): Promise<number> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'kiln-bench-apply-ws-'));
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'kiln-bench-apply-data-'));
  try {
    const store = new HistoryStore({ dataDir, root });
    let feed = 0;
    const workspace = await Workspace.open({
      root,
      beforeReplace: historyRecorder({ store, excluded: () => false }),
      keepCreated: historyCreationRecorder({ store, excluded: () => false }),
      onChange: () => void feed++,
    });
    const env = stage ? process.env : { ...process.env, KILN_RUN_OVERLAY: 'none' };
    const verbs = new Verbs({
      workspace,
      python: PYTHON,
      sandbox: new Sandbox({ env }),
      stageRunWritesIn: path.join(dataDir, 'runs'),
    });
    const start = performance.now();
    const result = await withWriteCause({ agentSession: 'bench', turn: 'turn-1' }, () =>
      verbs.call('execute-code', { code: CODE }),
    );
    const ms = performance.now() - start;
    if (result.returncode !== 0) throw new Error(result.stderr);
    if (stage && result.files?.created.length !== FILES) throw new Error(`applied ${result.files?.created.length}`);
    await checkWritten(root);
    if (stage && (await store.list('out/f00042.txt')).length !== 1) throw new Error('no history of an applied file');
    await verbs.dispose();
    await store.dispose();
    return ms;
  } finally {
    await rm(root, { recursive: true, force: true });
    await rm(dataDir, { recursive: true, force: true, maxRetries: 2 }).catch(() => undefined);
  }
}

/** Both sides leave the same workspace: the 2,000 files, each with the bytes the code wrote. */
async function checkWritten(root: string): Promise<void> {
  const names = (await readdir(path.join(root, 'out'))).sort();
  if (names.length !== FILES) throw new Error(`${names.length} files written, not ${FILES}`);
  for (const i of [0, 42, FILES - 1]) {
    const name = `f${String(i).padStart(5, '0')}.txt`;
    const bytes = await readFile(path.join(root, 'out', name), 'utf8');
    if (bytes !== `file ${i}\n`.repeat(40)) throw new Error(`${name} does not hold what the code wrote`);
  }
}

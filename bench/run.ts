import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runDataViewerBench } from './data-viewer';
import { runDownloadBench } from './download';
import { runEditDiffBench } from './edit-diff';
import { runEditorTypingBench } from './editor-typing';
import { runGitStatusBench } from './git-status';
import { runHistoryBench } from './history';
import { runLanguageServerBench } from './language-server';
import { runListingBench } from './listing';
import { runNotebookDiffBench } from './notebook-diff';
import { runNotebookDragBench } from './notebook-drag';
import { runNotebookFindBench } from './notebook-find';
import { runNotebookFramesBench } from './notebook-frames';
import { benchNotebookComplete } from './notebook-complete';
import { benchDebuggerStep } from './debugger-step';
import { runNotebookOutputsBench } from './notebook-outputs';
import { benchNotebookRoundTrip } from './notebook-roundtrip';
import { runOpenNotebookBench } from './open-notebook';
import { runQuickOpenBench } from './quick-open';
import { runSandboxBench } from './sandbox';
import { runSandboxApplyBench } from './sandbox-apply';
import { runSearchBench } from './search';
import { runScaleBench } from './scale';
import { beginBench, judgedFigure, reportedFigures, targetText, type Figure } from './support';
import { runTreeBench } from './tree/tree-bench';
import { runUploadBench } from './upload';
import { runVariablesBench } from './variables';

/**
 * `npm run bench` (or `npm run bench -- <name> [<name>…]`): each benchmark prints its figures against a
 * baseline measured in the same run; at the end a summary table, bench/results.json (figures, targets and
 * the machine's load), and a non-zero exit when any figure misses its target or a benchmark failed.
 * Each benchmark runs in a process of its own: run one after another in one process, the later ones
 * measured a heap grown to gigabytes by the earlier ones (every spawn forks it, every collection walks it).
 */
const RESULTS = path.join(import.meta.dirname, 'results.json');
/** `run.ts --one <name> <file>`: runs that benchmark here and writes its figures and error to the file. */
const ONE = '--one';
const only = process.argv.slice(2);
const benches: Record<string, () => Promise<unknown>> = {
  listing: runListingBench,
  tree: runTreeBench,
  'notebook-roundtrip': () => benchNotebookRoundTrip(),
  'open-notebook': runOpenNotebookBench,
  'notebook-frames': runNotebookFramesBench,
  'notebook-drag': runNotebookDragBench,
  'notebook-diff': runNotebookDiffBench,
  'notebook-complete': () => benchNotebookComplete(),
  'debugger-step': () => benchDebuggerStep(),
  'notebook-find': runNotebookFindBench,
  'notebook-outputs': runNotebookOutputsBench,
  'edit-diff': runEditDiffBench,
  'editor-typing': runEditorTypingBench,
  'quick-open': runQuickOpenBench,
  search: runSearchBench,
  'git-status': runGitStatusBench,
  sandbox: runSandboxBench,
  'sandbox-apply': runSandboxApplyBench,
  scale: runScaleBench,
  history: runHistoryBench,
  upload: runUploadBench,
  download: runDownloadBench,
  'language-server': runLanguageServerBench,
  variables: runVariablesBench,
  'data-viewer': runDataViewerBench,
};
if (process.argv[2] === ONE) await runOne(process.argv[3], process.argv[4]);
const unknown = only.filter((name) => !Object.hasOwn(benches, name));
if (unknown.length) {
  console.error(`Unknown benchmark ${unknown.join(', ')}; there are: ${Object.keys(benches).join(', ')}`);
  process.exit(2);
}

interface BenchRun {
  name: string;
  seconds: number;
  /** 1-minute load average before and after (other programs' work skews every figure). */
  loadBefore: number;
  loadAfter: number;
  error: string | null;
}

interface OneOutcome {
  figures: Figure[];
  error: string | null;
}

const runs: BenchRun[] = [];
const figures: Figure[] = [];
const scratch = await mkdtemp(path.join(os.tmpdir(), 'kiln-bench-run-'));
for (const name of Object.keys(benches)) {
  if (only.length && !only.includes(name)) continue;
  const loadBefore = os.loadavg()[0];
  const started = performance.now();
  const outcome = await runInChild(name, path.join(scratch, `${name}.json`));
  figures.push(...outcome.figures);
  if (outcome.error) console.error(`${name} failed: ${outcome.error}`);
  runs.push({
    name,
    seconds: (performance.now() - started) / 1000,
    loadBefore,
    loadAfter: os.loadavg()[0],
    error: outcome.error,
  });
}
await rm(scratch, { recursive: true, force: true });

const previous = await readPrevious();
printSummary(figures, runs, previous);
await writeFile(
  RESULTS,
  `${JSON.stringify(
    {
      date: new Date().toISOString(),
      commit: gitCommit(),
      machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model ?? '', memoryGb: os.totalmem() / 2 ** 30 },
      benches: runs,
      figures,
    },
    null,
    2,
  )}\n`,
);
console.log(`Written to ${path.relative(process.cwd(), RESULTS)}.`);
const failed = runs.filter((run) => run.error).length;
const missed = figures.filter((figure) => figure.meets === false).length;
if (failed || missed) {
  console.log(`${missed} figure(s) miss their target, ${failed} benchmark(s) failed.`);
  process.exit(1);
}
process.exit(0);

/** Runs one benchmark in a fresh Node process (this file with --one), its output shown as it comes. */
async function runInChild(name: string, outFile: string): Promise<OneOutcome> {
  const child = spawn(process.execPath, [...process.execArgv, import.meta.filename, ONE, name, outFile], {
    stdio: 'inherit',
  });
  const code = await new Promise<number | null>((resolve) => {
    child.once('error', () => resolve(null));
    child.once('exit', (exitCode) => resolve(exitCode));
  });
  try {
    return JSON.parse(await readFile(outFile, 'utf8')) as OneOutcome;
  } catch {
    return { figures: [], error: `its process ended (exit code ${code}) before reporting` };
  }
}

async function runOne(name: string, outFile: string): Promise<never> {
  beginBench(name);
  let error: string | null = null;
  try {
    await benches[name]();
  } catch (err) {
    error = err instanceof Error ? (err.stack ?? err.message) : String(err);
  }
  const outcome: OneOutcome = { figures: [...reportedFigures()], error };
  await writeFile(outFile, JSON.stringify(outcome));
  process.exit(0);
}

/** The last run's figures by bench and name, so this run's table shows what changed. */
async function readPrevious(): Promise<Map<string, Figure>> {
  try {
    const last = JSON.parse(await readFile(RESULTS, 'utf8')) as { figures: Figure[] };
    return new Map(last.figures.map((figure) => [`${figure.bench}\n${figure.name}`, figure]));
  } catch {
    return new Map();
  }
}

function printSummary(figures: readonly Figure[], runs: BenchRun[], previous: Map<string, Figure>): void {
  const rows = figures.map((figure) => {
    const last = previous.get(`${figure.bench}\n${figure.name}`);
    const shown = judgedFigure(figure);
    const before = last ? judgedFigure(last) : null;
    return [
      figure.meets === null ? '' : figure.meets ? 'ok' : 'MISS',
      figure.bench,
      shown.text,
      targetText(figure.target, figure.unit),
      before === null ? '' : `${before.text} (${(shown.value - before.value).toFixed(2)})`,
      figure.name.length > 90 ? `${figure.name.slice(0, 89)}…` : figure.name,
    ];
  });
  for (const run of runs.filter((r) => r.error))
    rows.push(['FAIL', run.name, '', '', '', (run.error ?? '').split('\n')[0]]);
  const header = ['', 'bench', 'figure', 'target', 'last run (change)', 'what'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  console.log('\nSummary');
  console.log(line(header));
  for (const row of rows) console.log(line(row));
  for (const run of runs)
    console.log(
      `  ${run.name}: ${run.seconds.toFixed(0)} s, load ${run.loadBefore.toFixed(2)} → ${run.loadAfter.toFixed(2)} on ${os.cpus().length} CPUs`,
    );
}

function gitCommit(): string | null {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8', cwd: import.meta.dirname }).trim();
  } catch {
    return null;
  }
}

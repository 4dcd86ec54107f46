import { runEditDiffBench } from './edit-diff';
import { runGitStatusBench } from './git-status';
import { runListingBench } from './listing';
import { runNotebookFindBench } from './notebook-find';
import { runNotebookFramesBench } from './notebook-frames';
import { benchNotebookRoundTrip } from './notebook-roundtrip';
import { runQuickOpenBench } from './quick-open';
import { runSearchBench } from './search';
import { runScaleBench } from './scale';
import { runTreeBench } from './tree/tree-bench';

/** `npm run bench`: every benchmark, each printing its ratio against a baseline measured in the same run. */
const only = process.argv[2];
const benches: Record<string, () => Promise<unknown>> = {
  listing: runListingBench,
  tree: runTreeBench,
  'notebook-roundtrip': () => benchNotebookRoundTrip(),
  'notebook-frames': runNotebookFramesBench,
  'notebook-find': runNotebookFindBench,
  'edit-diff': runEditDiffBench,
  'quick-open': runQuickOpenBench,
  search: runSearchBench,
  'git-status': runGitStatusBench,
  scale: runScaleBench,
};

for (const [name, bench] of Object.entries(benches)) {
  if (only && only !== name) continue;
  await bench();
}
// A benchmark that missed its target set a failing exit code.
process.exit(process.exitCode ?? 0);

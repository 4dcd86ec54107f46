import { runEditDiffBench } from './edit-diff';
import { runGitStatusBench } from './git-status';
import { runListingBench } from './listing';
import { runNotebookFramesBench } from './notebook-frames';
import { runNotebookOutputsBench } from './notebook-outputs';
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
  'notebook-outputs': runNotebookOutputsBench,
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
process.exit(0);

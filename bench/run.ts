import { runListingBench } from './listing';
import { benchNotebookRoundTrip } from './notebook-roundtrip';

/** `npm run bench`: every benchmark, each printing its ratio against a baseline measured in the same run. */
const only = process.argv[2];
const benches: Record<string, () => Promise<unknown>> = {
  listing: runListingBench,
  'notebook-roundtrip': () => benchNotebookRoundTrip(),
};

for (const [name, bench] of Object.entries(benches)) {
  if (only && only !== name) continue;
  await bench();
}
process.exit(0);

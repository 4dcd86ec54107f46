/**
 * The Variables view after a run ends, 100 variables: a cell (the same each time) runs through Kiln to its end, then `notebook.variables`
 * is sent on the WebSocket as the renderer sends it (router -> NotebookService -> KernelAssist -> kernel) and timed
 * to its reply parsed. Baseline: a direct `@jupyterlab/services` connection to the same kernel sending the same
 * execute_request (silent, the same inspection as its user expression), after the same run. Samples interleaved.
 * Targets: ≤ 1.3x the direct client, and ≤ 150 ms absolute.
 */
import { VARIABLES_LIMIT } from '../main/kernel';
import { VARIABLES_MODULE, VARIABLES_PY } from '../main/kernel/variables-snippet';
import { startKernelBench, NOTEBOOK } from './kernel-bench-setup';
import { interleaved, median, report, reportValue, runWhenMain } from './support';

/** The expression main sends (main/kernel/variables.ts), rebuilt so the baseline asks exactly the same. */
const INSTALL =
  `(__import__('sys').modules.get('${VARIABLES_MODULE}') or (lambda m: (` +
  `__import__('sys').modules.__setitem__(m.__name__, m), exec(${JSON.stringify(VARIABLES_PY)}, m.__dict__), m)[2])` +
  `(__import__('types').ModuleType('${VARIABLES_MODULE}')))`;
const LISTING = `(lambda k: k.Answer(k.listing(__import__('IPython').get_ipython().user_ns, False, ${VARIABLES_LIMIT})))(${INSTALL})`;

export async function runVariablesBench(options: { samples?: number } = {}): Promise<void> {
  const samples = options.samples ?? 30;
  const bench = await startKernelBench('kiln-bench-variables-');
  try {
    // 100 variables of the usual kinds: numbers, text, lists, dicts, arrays and frames.
    await bench.run(
      'import numpy as np, pandas as pd\n' +
        'for i in range(100):\n' +
        '    globals()[f"v{i:03}"] = [i, f"text {i}", list(range(i)), {"k": i}, np.arange(i * 1000), pd.DataFrame({"a": range(i)})][i % 6]',
    );
    await bench.run('step = 0');
    const kilnOnce = async () => {
      await bench.rerun();
      const start = performance.now();
      const reply = await bench.client.request('notebook.variables', { path: NOTEBOOK, all: false });
      const took = performance.now() - start;
      if (reply.status !== 'ok' || reply.variables.length < 100)
        throw new Error(`Kiln listed no variables (${reply.status})`);
      return took;
    };
    const directOnce = async () => {
      await bench.rerun();
      const start = performance.now();
      await bench.directExpression(LISTING);
      return performance.now() - start;
    };
    const { kiln, baseline } = await interleaved(kilnOnce, directOnce, samples, 3);
    report(
      {
        name: `variables after a run ends, 100 variables: notebook.variables over the WebSocket vs the same execute_request on @jupyterlab/services, median of ${samples} interleaved`,
        kiln: median(kiln),
        baseline: median(baseline),
        unit: 'ms',
      },
      { ratio: 1.3 },
    );
    reportValue('variables after a run ends, 100 variables (absolute)', median(kiln), 'ms', { max: 150 });
  } finally {
    await bench.close();
  }
}

runWhenMain(import.meta.url, runVariablesBench);

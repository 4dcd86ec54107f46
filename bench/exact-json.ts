/**
 * What exact numbers cost on a 20 MB notebook (not part of `npm run bench`; run with
 * `node --expose-gc --import tsx bench/exact-json.ts`).
 *
 * The notebook is written by Python's nbformat: 1,000 code cells, each with a stream of text lines, a PNG with
 * `"width": 640.0` and an application/json output holding 1.0, 1e-05, 1e+20 and a 23-digit int, plus widget state.
 * Timed, in CPU milliseconds (process.cpuUsage, so the other load on the machine counts less), median of 9
 * interleaved samples, each after a garbage collection:
 * - parse: JSON.parse (today's reader) against parsePythonJson (JSON.parse plus the scan for exact numbers);
 * - open: notebook.open in NotebookService from the request to the document it answers (read, parse, validate,
 *   the model, the wire cells with their exact numbers), and the share of it the JSON layer adds;
 * - save: JSON.stringify of the key-sorted tree (today's writer) against writePythonJson.
 */
import { execFileSync } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { parsePythonJson, writePythonJson } from '../main/notebook/exact-json';
import { NotebookService } from '../main/notebook/service';
import { makeWorkspace, announcingNotebooks } from '../test-support/event-hub';

const GENERATE = `
import nbformat, random, base64, sys
from nbformat.v4 import new_notebook, new_code_cell, new_output
random.seed(7)
per = 22_500_000 // 1000
nb = new_notebook(metadata={"widgets": {"application/vnd.jupyter.widget-state+json": {"state": {"m": {"model_name": "FloatSliderModel", "state": {"value": 2.0, "max": 100.0, "step": 0.1}}}, "version_major": 2, "version_minor": 0}}})
png = base64.b64encode(bytes(random.getrandbits(8) for _ in range(per // 3))).decode()
for i in range(1000):
    lines = "".join(f"step {j} loss {random.random():.6f}\\n" for j in range(per // 3 // 28))
    outs = [new_output("stream", name="stdout", text=lines),
            new_output("display_data", data={"image/png": png, "text/plain": "<Figure>"}, metadata={"image/png": {"width": 640.0, "height": 480}}),
            new_output("execute_result", data={"application/json": {"x": 1.0, "y": [1e-05, 1e20, 12345678901234567890123], "z": 0.5}}, execution_count=i + 1)]
    nb.cells.append(new_code_cell(source=f"x = {i}", execution_count=i + 1, outputs=outs))
nbformat.write(nb, sys.argv[1])
`;

function sortKeysDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeysDeep);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) out[key] = sortKeysDeep((value as Record<string, unknown>)[key]);
    return out;
  }
  return value;
}

/** With --expose-gc, each sample starts from a collected heap, so no sample pays for another's garbage. */
const collect = (globalThis as { gc?: () => void }).gc ?? (() => undefined);

async function cpuMs(work: () => unknown): Promise<number> {
  collect();
  const start = process.cpuUsage();
  await work();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const { root, workspace, hub } = await makeWorkspace('kiln-exact-bench-');
try {
  const file = path.join(root, 'big.ipynb');
  execFileSync('/usr/bin/python3', ['-c', GENERATE, file], { env: { ...process.env, PYTHONWARNINGS: 'ignore' } });
  const text = await readFile(file, 'utf8');
  const tree = parsePythonJson(text);
  const svc = announcingNotebooks(hub, new NotebookService({ workspace, jupyter: null, autoStartKernel: false }));
  const samples = { jsonParse: [] as number[], exactParse: [] as number[], open: [] as number[] };
  const writes = { stringify: [] as number[], python: [] as number[] };
  for (let i = 0; i < 9; i++) {
    samples.jsonParse.push(await cpuMs(() => JSON.parse(text)));
    samples.exactParse.push(await cpuMs(() => parsePythonJson(text)));
    samples.open.push(
      await cpuMs(async () => {
        await svc.open('big.ipynb');
        await svc.close('big.ipynb');
      }),
    );
    writes.stringify.push(await cpuMs(() => JSON.stringify(sortKeysDeep(tree), null, 1)));
    writes.python.push(await cpuMs(() => writePythonJson(tree)));
  }
  await svc.dispose();
  const parse = median(samples.jsonParse);
  const exact = median(samples.exactParse);
  const open = median(samples.open);
  const added = exact - parse;
  console.log(`exact-json on a ${(text.length / 1e6).toFixed(1)} MB notebook (CPU ms, median of 9)`);
  console.log(`  parse: JSON.parse ${parse.toFixed(0)}, parsePythonJson ${exact.toFixed(0)} (+${added.toFixed(0)})`);
  console.log(
    `  open:  ${open.toFixed(0)} with exact numbers; today's would be ~${(open - added).toFixed(0)}: +${((added / (open - added)) * 100).toFixed(1)}% (target ≤ 10%)`,
  );
  console.log(
    `  save:  JSON.stringify(sorted) ${median(writes.stringify).toFixed(0)}, writePythonJson ${median(writes.python).toFixed(0)}`,
  );
} finally {
  await rm(root, { recursive: true, force: true });
}

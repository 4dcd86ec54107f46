import { execFileSync } from 'node:child_process';
import { debianPython } from './nbformat';

/*
 * Notebooks built by Python's nbformat (nbformat.v4.new_* then nbformat.writes, plus the newline nbformat.write
 * adds: the bytes Jupyter puts on disk), made at test time so fixtures are nbformat's own and never go stale.
 * Many at once in one Python process: its start-up is most of the cost.
 */

export interface OutputSpec {
  output_type: 'stream' | 'display_data' | 'execute_result' | 'error';
  [key: string]: unknown;
}

export interface CellSpec {
  type?: 'code' | 'markdown' | 'raw';
  source: string;
  /** Set for nbformat 4.5 (nbformat makes a random one when absent); never written for 4.4. */
  id?: string;
  execution_count?: number | null;
  metadata?: Record<string, unknown>;
  outputs?: OutputSpec[];
}

export interface NotebookSpec {
  /** nbformat_minor: 5 (cell ids) by default, 4 for a notebook without ids. */
  minor?: number;
  metadata?: Record<string, unknown>;
  cells: CellSpec[];
}

const BUILD = String.raw`
import json, sys, nbformat
from nbformat.v4 import new_notebook, new_code_cell, new_markdown_cell, new_raw_cell, new_output
def build(spec):
    nb = new_notebook(metadata=spec.get("metadata", {}))
    nb.nbformat_minor = spec.get("minor", 5)
    for c in spec["cells"]:
        kind = c.get("type", "code")
        md = c.get("metadata", {})
        if kind == "code":
            cell = new_code_cell(source=c["source"], execution_count=c.get("execution_count"), metadata=md,
                                 outputs=[new_output(**o) for o in c.get("outputs", [])])
        elif kind == "markdown":
            cell = new_markdown_cell(source=c["source"], metadata=md)
        else:
            cell = new_raw_cell(source=c["source"], metadata=md)
        if nb.nbformat_minor < 5:
            cell.pop("id", None)
        elif "id" in c:
            cell.id = c["id"]
        nb.cells.append(cell)
    nbformat.validate(nb)
    return nbformat.writes(nb) + "\n"
print(json.dumps([build(spec) for spec in json.load(sys.stdin)]))
`;

const VALIDATE = String.raw`
import io, json, sys, nbformat
out = []
for text in json.load(sys.stdin):
    try:
        nbformat.validate(nbformat.reads(text, as_version=4))
        out.append(None)
    except Exception as err:
        out.append(str(err)[:300])
print(json.dumps(out))
`;

function runPython(script: string, input: unknown): unknown {
  // Debian's Python: the one with python3-nbformat (the pyenv python first on PATH has none).
  const out = execFileSync('/usr/bin/python3', ['-c', script], {
    env: { ...process.env, PYTHONWARNINGS: 'ignore' },
    encoding: 'utf8',
    input: JSON.stringify(input),
    maxBuffer: 1 << 30,
  });
  return JSON.parse(out);
}

/** The bytes nbformat writes for each spec. */
export function nbformatWrites(specs: NotebookSpec[]): string[] {
  return runPython(BUILD, specs) as string[];
}

/** For each notebook text, null when nbformat reads and validates it, else nbformat's complaint. */
export function nbformatProblems(texts: string[]): (string | null)[] {
  return runPython(VALIDATE, texts) as (string | null)[];
}

const REWRITE = String.raw`
import json, sys, nbformat
out = []
for text in json.load(sys.stdin):
    nb = nbformat.reads(text, as_version=nbformat.NO_CONVERT)
    nbformat.validate(nb)
    out.append(nbformat.writes(nb) + "\n")
print(json.dumps(out))
`;

/** What nbformat writes back for each text after reading and validating it (throws when one is invalid). */
export function nbformatRewrites(texts: string[]): string[] {
  return runPython(REWRITE, texts) as string[];
}

/**
 * nbformat's write of `now` with the cells named taken whole from `from` (the judge of a cell undo): Python reads
 * both files, swaps the cells, validates and writes as Jupyter does.
 */
export function nbformatWithCellsFrom(now: string, from: string, ids: string[]): string {
  const script = [
    'import io, json, sys, nbformat',
    'now = nbformat.reads(sys.argv[1], as_version=4); old = nbformat.reads(sys.argv[2], as_version=4)',
    'ids = json.loads(sys.argv[3]); olds = {c.id: c for c in old.cells}',
    'now.cells = [olds[c.id] if c.id in ids else c for c in now.cells]',
    'nbformat.validate(now)',
    'out = io.StringIO(); nbformat.write(now, out); sys.stdout.write(out.getvalue())',
  ].join('\n');
  return debianPython(['-c', script, now, from, JSON.stringify(ids)]);
}

import { execFileSync } from 'node:child_process';

/**
 * Debian's Python, the one with python3-nbformat (not the pyenv python on PATH). Warnings are silenced so that
 * stdout is only what the script prints.
 */
export function debianPython(args: string[], options: { maxBuffer?: number } = {}): string {
  return execFileSync('/usr/bin/python3', args, {
    env: { ...process.env, PYTHONWARNINGS: 'ignore' },
    encoding: 'utf8',
    ...options,
  });
}

/** What nbformat makes of a notebook file; reading it throws if nbformat finds it invalid. */
export interface NbformatJudgement {
  valid: true;
  minor: number;
  /** nbformat.write (as Jupyter saves) gives exactly the bytes on disk. */
  sameBytes: boolean;
  sources: string[];
  ids: (string | null)[];
  /** Each cell's outputs as nbformat reads them ([] for cells without outputs). */
  outputs: unknown[][];
}

const JUDGE = [
  'import io, json, sys, nbformat',
  'raw = open(sys.argv[1], encoding="utf-8", newline="").read()',
  'nb = nbformat.read(io.StringIO(raw), as_version=4)',
  'nbformat.validate(nb)',
  'out = io.StringIO(); nbformat.write(nb, out)',
  'print(json.dumps({"valid": True, "minor": nb.nbformat_minor, "sameBytes": out.getvalue() == raw,',
  '  "sources": [c.source for c in nb.cells], "ids": [c.get("id") for c in nb.cells],',
  '  "outputs": [c.get("outputs", []) for c in nb.cells]}))',
].join('\n');

/** nbformat itself judges a notebook Kiln wrote: it reads and validates the file, and writes it back as Jupyter would. */
export function judgeWithNbformat(file: string): NbformatJudgement {
  return JSON.parse(debianPython(['-c', JUDGE, file])) as NbformatJudgement;
}

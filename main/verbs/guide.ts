import type { VerbName } from '../../shared/contract/verbs';

/** One line per verb: what it is for, in the block's words. */
const VERB_LINES: Record<VerbName, string> = {
  'list-files': 'see what a folder holds (not logged).',
  'read-file': 'read a file, or a range of its lines, before changing it (not logged).',
  'write-file': 'create a file or replace it whole; reusable code goes in `src/` (authoring: not logged).',
  'edit-file': 'change an existing file in place: `mode: "replace"` with an `old` that occurs exactly once, or `mode: "overwrite"` (authoring: not logged).',
  'run-file': 'run a Python file as `__main__` in a fresh process; logged in `scripts/` as a step that runs it.',
  'execute-code': 'run a throwaway one-shot in a fresh process; its code is saved in `scripts/` as the next step.',
  'append-notebook-cell': 'append a cell to a notebook without running it.',
  'run-notebook-cell': "append a code cell to a notebook and run it on the notebook's live kernel.",
  'edit-notebook-cell': "replace a notebook cell's source (outputs kept, not run).",
  'delete-notebook-cell': 'delete a notebook cell.',
  'rerun-notebook-cell': "clear a notebook cell's outputs and run it again on the live kernel.",
};

/**
 * The design's shared "Authoring vs running" block, with its paths adapted to Kiln (the workspace root where
 * the design says a session folder). Kiln's workspace agent reads it as its harness prompt and MCP clients as
 * the server's instructions, so every agent on a workspace is taught the same rules. `offered`: the verbs
 * this agent may call (the allowlist), listed in the block's order.
 */
export function authoringVsRunning(offered: readonly string[]): string {
  const verbs = (Object.keys(VERB_LINES) as VerbName[]).filter((verb) => offered.includes(verb));
  return [
    '## Authoring vs running',
    '',
    'Verbs (paths are relative to the workspace root):',
    ...(verbs.length ? verbs.map((verb) => `- \`${verb}\`: ${VERB_LINES[verb]}`) : ['- (none: answer in text only)']),
    '',
    'Where code runs:',
    '- `run-file` and `execute-code` start at the workspace root: relative paths in the code are from the root.',
    "- A notebook's kernel starts in the notebook's folder (Jupyter's convention): relative paths in a cell are from that folder.",
    '- `src/` is importable from both: `from loaders import load_csv` finds `src/loaders.py`.',
    '',
    '**Rule of three.** Before pasting code into a third `execute-code` call on the same theme, stop and refactor: ' +
      '`write-file` `src/{name}.py`, then `run-file` it or import it in the next cell. This holds for notebook cells too.',
    '',
    '**Edit, don\'t repaste.** `edit-file` the existing module rather than `write-file` a near-duplicate. ' +
      '`scripts/` is the audit log of what ran; `src/` is the library that survives. Keep `src/` small and edited; let `scripts/` accumulate.',
    '',
    '**Import, don\'t restart.** A notebook cell can `import` from `src/`, and the kernel finds a module written after it ' +
      'started, without restart. (A module the kernel already imported and you then edited needs `importlib.reload(module)`.)',
    '',
    'Never write or edit files in `scripts/`: only `run-file` and `execute-code` write there, and each step replays ' +
      'with `python3 scripts/step_NN_*.py` from the workspace root.',
  ].join('\n');
}

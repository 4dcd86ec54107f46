import { VERB_NAMES, VERBS } from '../../shared/contract/verbs';

/**
 * The shared "Authoring vs running" block: how an agent should author modules and run steps in a Kiln
 * workspace (paths are relative to the workspace root). Kiln's Agent reads it as its harness prompt and MCP clients as
 * the server's instructions, so every agent on a workspace is taught the same rules. `offered`: the verbs
 * this agent may call (the allowlist), listed in the block's order.
 */
export function authoringVsRunning(offered: readonly string[]): string {
  const verbs = VERB_NAMES.filter((verb) => offered.includes(verb));
  return [
    '## Authoring vs running',
    '',
    'Verbs (paths are relative to the workspace root):',
    ...(verbs.length ? verbs.map((verb) => `- \`${verb}\`: ${VERBS[verb].guide}`) : ['- (none: answer in text only)']),
    '',
    'Where code runs:',
    '- `run-file` and `execute-code` start at the workspace root: relative paths in the code are from the root.',
    "- A notebook's kernel starts in the notebook's folder (Jupyter's convention): relative paths in a cell are from that folder.",
    '- `src/` is importable from both: `from loaders import load_csv` finds `src/loaders.py`.',
    '',
    '**Rule of three.** Before pasting code into a third `execute-code` call on the same theme, stop and refactor: ' +
      '`write-file` `src/{name}.py`, then `run-file` it or import it in the next cell. This holds for notebook cells too.',
    '',
    "**Edit, don't repaste.** `edit-file` the existing module rather than `write-file` a near-duplicate. " +
      '`scripts/` is the audit log of what ran; `src/` is the library that survives. Keep `src/` small and edited; let `scripts/` accumulate.',
    '',
    "**Import, don't restart.** A notebook cell can `import` from `src/`, and the kernel finds a module written after it " +
      'started, without restart. (A module the kernel already imported and you then edited needs `importlib.reload(module)`.)',
    '',
    'Never write or edit files in `scripts/`: only `run-file` and `execute-code` write there, and each step replays ' +
      'with `python3 scripts/step_NN_*.py` from the workspace root.',
  ].join('\n');
}

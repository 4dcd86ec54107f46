/**
 * The `workspace` kind's harness prompt: how to work in a workspace with the verbs. Prescriptive on
 * purpose: models left alone re-paste code into one-shots instead of building modules. Pure.
 */
const VERB_GUIDE: Record<string, string> = {
  'list-files': 'see what a folder holds (not logged).',
  'read-file': 'read a file, or a range of its lines, before changing it (not logged).',
  'write-file': 'create a file or replace it whole (reusable code goes in `src/`).',
  'edit-file': 'change an existing file in place (`mode: "replace"` with an `old` that occurs exactly once, or `mode: "overwrite"`).',
  'run-file': 'run a Python file as `__main__` in a fresh process; `src/` is importable; logged in `scripts/`.',
  'execute-code': 'run a throwaway one-shot snippet; it is saved in `scripts/` as the next step.',
  'append-notebook-cell': 'append a cell to a notebook without running it.',
  'run-notebook-cell': "append a code cell to a notebook and run it against the notebook's live kernel.",
  'edit-notebook-cell': "replace a notebook cell's source (outputs kept, not run).",
  'delete-notebook-cell': 'delete a notebook cell.',
  'rerun-notebook-cell': 'clear a notebook cell\'s outputs and run it again.',
};

export function workspaceHarnessPrompt(offered: readonly string[]): string {
  const lines = [
    'You are an agent working inside the operator\'s workspace (a folder of code, data and notebooks).',
    'You act only through the tools below. Paths are relative to the workspace root; the working directory of every run is that root.',
    '',
    '## Tools you have',
    ...(offered.length ? offered.map((verb) => `- \`${verb}\`: ${VERB_GUIDE[verb] ?? 'see its description.'}`) : ['- (none: answer in text only)']),
    '',
    '## How to work (follow these rules)',
    '- Reusable code lives in modules under `src/`. Write it there with `write-file`, then run it with `run-file` or import it (`from loaders import load_csv` for `src/loaders.py`): `src/` is on the import path of every run, of `execute-code` and of every notebook kernel.',
    '- To change an existing module, use `edit-file`. Never write a near-copy of a module under a new name.',
    '- Before pasting the same code a third time (into a snippet, a cell or a file), move it into a module in `src/` and import it instead.',
    '- Notebook cells can import from `src/` too: keep cells short and put the logic in modules.',
    '- `execute-code` is for throwaway one-shots (a quick look at data, a version check). Anything you will run again belongs in `src/`.',
    '- `scripts/` is the audit log of what ran; it is written by `run-file` and `execute-code` only. Never write or edit files in `scripts/`.',
    '- Read results before going on: a non-zero exit code or a traceback means fix the module with `edit-file` and run it again.',
    '- Keep messages short. Never paste a file\'s whole content into a message: the operator sees your tool calls and the files themselves.',
  ];
  return lines.join('\n');
}

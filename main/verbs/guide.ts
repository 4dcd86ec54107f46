import { VERB_NAMES, VERBS } from '../../shared/contract/verbs';

/**
 * The verbs design's shared "Authoring vs running" block (specs/seeds/verbs-design.txt, §4), verbatim: same heading,
 * same lines, same wrapping. One adaptation only, the two path facts of its second paragraph, so they are true in
 * Kiln (a test holds the block to the seed line by line, allowing exactly that).
 */
export const AUTHORING_VS_RUNNING_BLOCK = `## Authoring vs running — use the right verb

Your session is a real Python repo. \`src/\` under the workspace root is on sys.path,
the workspace root is the cwd of \`run-file\` and \`execute-code\`. The skills split along the verbs you need:

- write-file(path, content)         create or replace a file at \`path\`
- edit-file(path, mode, ...)        change part of an existing file
- run-file(path)                    execute a file in the sandbox
- execute-code(code)                one-shot throwaway Python; auto-saved to scripts/
- append-notebook-cell / run-notebook-cell / edit-notebook-cell /
  delete-notebook-cell / rerun-notebook-cell  for interactive work

**Rule of three:** before pasting code into a third execute-code call on
the same theme, stop and refactor. write-file(\`src/{name}.py\`, ...) the
shared body, then run-file it (or \`from {name} import ...\` in your next
cell). This holds for notebook cells too — \`import\` from \`src/\` works
inside a kernel cell.

**Edit, don't repaste.** If you'd be about to write-file a near-duplicate
of an existing module, edit-file the existing one. \`scripts/\` is the
audit log of what ran; \`src/\` is the library that survives. Keep \`src/\`
small and edited; let \`scripts/\` accumulate.`;

/** The adaptation: the seed's path facts (a hosted session's folders) and Kiln's, in that order. */
export const BLOCK_ADAPTATION: ReadonlyArray<readonly [seed: string, kiln: string]> = [
  ['`/sessions/{sid}/src/` is on sys.path,', '`src/` under the workspace root is on sys.path,'],
  ['`/sessions/{sid}/` is your cwd.', 'the workspace root is the cwd of `run-file` and `execute-code`.'],
];

/**
 * What every agent on a workspace is taught (Kiln's Agent as its harness prompt, MCP clients as the server's
 * instructions): the design's block, then Kiln's own section after it, never inside it. `offered`: the verbs this
 * agent may call (the allowlist), listed in the table's order with their exact argument names.
 */
export function authoringVsRunning(offered: readonly string[]): string {
  const verbs = VERB_NAMES.filter((verb) => offered.includes(verb));
  return [
    AUTHORING_VS_RUNNING_BLOCK,
    '',
    '## In Kiln',
    '',
    'The verbs you may call here (paths are relative to the workspace root):',
    ...(verbs.length ? verbs.map((verb) => `- \`${verb}\`: ${VERBS[verb].guide}`) : ['- (none: answer in text only)']),
    '',
    'Where code runs:',
    '- `run-file` and `execute-code` run in a sandbox at the workspace root: relative paths in the code are from the root. ' +
      'The code can read and write the workspace (not `scripts/`, `.kiln/` or `.git/`) and read the system and Python; ' +
      'it sees an empty home and `/tmp`, no secrets or keys in its environment, and no network (unless the operator ' +
      'allows outbound only); `ptrace`, mounts, new namespaces and the kernel keyring fail with EPERM. ' +
      'A run is stopped at 60 s (600 s and most of the memory with `heavy: true`, the training profile), or at its memory ' +
      'or process cap; the result then says which `limit` was hit.',
    "- A run's writes reach the workspace when it ends (the result's `files` lists them). Inside a run, `os.rename` of " +
      'a folder that existed before the run fails with `EXDEV`: move such a folder with `shutil.move` (or `mv`), which ' +
      'copies. Files, and folders the run made itself, rename as usual.',
    "- Notebook cells run in the operator's own kernel, their process, not in the sandbox. A notebook's kernel starts in " +
      "the notebook's folder (Jupyter's convention): relative paths in a cell are from that folder.",
    '- `src/` is importable from both: `from loaders import load_csv` finds `src/loaders.py`.',
    '',
    "**Import, don't restart.** A notebook cell can `import` from `src/`, and the kernel finds a module written after it " +
      'started, without restart. (A module the kernel already imported and you then edited needs `importlib.reload(module)`.)',
    '',
    'Never write or edit files in `scripts/`: only `run-file` and `execute-code` write there, and each step replays ' +
      'with `python3 scripts/step_NNN_*.py` from the workspace root.',
    '',
    "Protected paths: `.kiln/`, `.git/` (and any `.git`), `scripts/` and Kiln's own data are not yours to change; a " +
      "home folder's hidden entries (`~/.ssh`, `~/.cache`…) are not yours to read. Verbs refuse them with `E_PROTECTED`, " +
      "and a run's writes there are not applied (the result's `files.refused` lists them): ask the operator, who can " +
      'make such a change in the editor. In a folder the operator has not trusted, notebook cells do not run ' +
      '(`E_NO_SANDBOX`): use `execute-code`.',
  ].join('\n');
}

import { describe, expect, it } from 'vitest';
import { toolChipLabel } from '../../shared/contract';
import { VERB_NAMES, type VerbName, type VerbResult } from '../../shared/contract/verbs';
import { describeCall, describeError, describeResult } from './tool-chips';

const run = (over: Partial<VerbResult<'run-file'>> = {}): VerbResult<'run-file'> => ({
  stdout: '',
  stderr: '',
  returncode: 0,
  duration_ms: 5,
  timed_out: false,
  sandboxed: true,
  profile: 'default',
  script: 'scripts/step_001_run_x.py',
  ...over,
});

const cellRun = (over: Partial<VerbResult<'run-notebook-cell'>> = {}): VerbResult<'run-notebook-cell'> => ({
  cell_id: 'c',
  status: 'ok',
  exec_count: 4,
  duration_ms: 3,
  had_error: false,
  outputs: [],
  saved: true,
  sandboxed: false,
  ...over,
});

/** One result per verb: a verb added to the table without a chip summary fails to compile here. */
const SAMPLES: { [V in VerbName]: { result: VerbResult<V>; summary: string } } = {
  'list-files': { result: { path: '', entries: [{ name: 'src', kind: 'dir' }] }, summary: '1 entries' },
  'read-file': {
    result: { path: 'a.py', content: 'x', start_line: 1, total_lines: 9, truncated: true },
    summary: '9 lines (part)',
  },
  'write-file': { result: { path: 'a.py', bytes_written: 3, created: false }, summary: '3 bytes' },
  'edit-file': { result: { path: 'a.py', bytes_written: 7, replacements: 1 }, summary: '1 replacement · 7 bytes' },
  'run-file': { result: run(), summary: 'exit 0' },
  'execute-code': { result: run({ returncode: 2 }), summary: 'exit 2' },
  'append-notebook-cell': { result: { cell_id: 'n', index: 3, saved: true }, summary: 'cell 3 added' },
  'run-notebook-cell': { result: cellRun(), summary: 'ok · [4] · unsandboxed' },
  'edit-notebook-cell': { result: { cell_id: 'n', source_len: 2, saved: true }, summary: 'cell n edited' },
  'delete-notebook-cell': { result: { cell_id: 'n', remaining_cells: 1, saved: true }, summary: '1 cells left' },
  'rerun-notebook-cell': { result: cellRun({ status: 'aborted', exec_count: null }), summary: 'aborted · unsandboxed' },
};

describe('tool chips', () => {
  it('sum up every verb’s result from its table entry', () => {
    for (const verb of VERB_NAMES)
      expect(describeResult(verb, SAMPLES[verb].result).summary, verb).toBe(SAMPLES[verb].summary);
  });

  it('names the verb and its path, and keeps only a short preview of a file body', () => {
    const body = 'x = 1\n'.repeat(200);
    const start = describeCall('write-file', { path: 'src/loaders.py', content: body });
    expect(start.target).toBe('src/loaders.py');
    const content = start.args.find((a) => a.name === 'content')!;
    expect(content.value.length).toBeLessThan(300);
    expect(content.omitted).toBe(body.length - content.value.length);
    expect(body.startsWith(content.value)).toBe(true);
    const end = describeResult('write-file', { path: 'src/loaders.py', bytes_written: 312, created: true });
    expect(toolChipLabel({ verb: 'write-file', target: start.target, summary: end.summary })).toBe(
      'write-file src/loaders.py · 312 bytes · new',
    );
  });

  it('summarizes runs by exit code, timeouts, and shows the head of the output', () => {
    expect(describeResult('run-file', run({ stdout: 'rows 3\n' }))).toMatchObject({
      status: 'ok',
      summary: 'exit 0',
      resultPreview: 'rows 3',
    });
    const failed = describeResult('run-file', run({ stderr: 'Traceback\n', returncode: 1 }));
    expect(failed).toMatchObject({ status: 'error', summary: 'exit 1' });
    expect(failed.resultPreview).toContain('[stderr]');
    const slow = describeResult(
      'execute-code',
      run({ stdout: 'y'.repeat(5000), returncode: -9, timed_out: true, script: 'scripts/step_002_loop.py' }),
    );
    expect(slow).toMatchObject({ status: 'error', summary: 'timed out', target: 'scripts/step_002_loop.py' });
    expect(slow.resultPreview).toMatch(/^y{600}\n… \(4400 more characters\)$/);
    // A limit says which, and its one line leads the preview; an unsandboxed run says so on the chip.
    const capped = describeResult(
      'execute-code',
      run({ returncode: 1, stderr: 'MemoryError\n', limit: 'memory', limit_message: 'Memory limit of 4 GiB reached.' }),
    );
    expect(capped).toMatchObject({ status: 'error', summary: 'memory limit' });
    expect(capped.resultPreview?.split('\n')[0]).toBe('Memory limit of 4 GiB reached.');
    expect(describeResult('run-file', run({ sandboxed: false })).summary).toBe('exit 0 · unsandboxed');
    // Writes refused under protected paths are counted on the chip and lead the preview.
    const refused = describeResult(
      'execute-code',
      run({
        files: {
          staged: true,
          created: ['out.csv'],
          changed: [],
          deleted: [],
          kept: [],
          refused: [{ path: '.kiln/config.yaml', why: "it is the project's Kiln config" }],
        },
      }),
    );
    expect(refused.summary).toBe('exit 0 · 1 refused');
    expect(refused.resultPreview?.split('\n')[0]).toBe(
      ".kiln/config.yaml: not applied: it is the project's Kiln config",
    );
    // run-file keeps the file it ran as its target; only a one-shot is named by its step.
    expect(describeResult('run-file', run()).target).toBeUndefined();
  });

  it('describes edits, notebook cells and refusals in one line', () => {
    expect(describeResult('edit-file', { path: 'a.py', bytes_written: 9, replacements: 0 }).summary).toBe(
      'overwritten · 9 bytes',
    );
    const cell = describeResult(
      'run-notebook-cell',
      cellRun({ outputs: [{ output_type: 'stream', name: 'stdout', text: '47\n' }] }),
    );
    // A kernel is not a sandbox: the chip says so.
    expect(cell).toMatchObject({ status: 'ok', summary: 'ok · [4] · unsandboxed', resultPreview: '47' });
    const error = describeResult(
      'rerun-notebook-cell',
      cellRun({
        status: 'error',
        had_error: true,
        outputs: [{ output_type: 'error', ename: 'ValueError', evalue: 'nope', traceback: [] }],
      }),
    );
    expect(error).toMatchObject({
      status: 'error',
      summary: 'error · [4] · unsandboxed',
      resultPreview: 'ValueError: nope',
    });
    const unsaved = describeResult('edit-notebook-cell', {
      cell_id: 'c',
      source_len: 3,
      saved: false,
      not_saved_reason: 'a.ipynb has unsaved edits by the operator',
    });
    expect(unsaved).toMatchObject({
      summary: 'cell c edited · not saved',
      resultPreview: 'a.ipynb has unsaved edits by the operator',
    });
    expect(describeResult('delete-notebook-cell', { cell_id: 'c', remaining_cells: 2, saved: true }).summary).toBe(
      '2 cells left',
    );
    expect(describeError('"src/x.py" does not exist (or is not a file); nothing was run\nmore').summary).toBe(
      '"src/x.py" does not exist (or is not a file); nothing was run',
    );
  });

  it('falls back to "done" for a result its schema refuses or a tool that is not a verb', () => {
    expect(describeResult('run-file', { stdout: 'half a result' })).toMatchObject({ status: 'ok', summary: 'done' });
    expect(describeResult('propose_file', { ok: true })).toMatchObject({
      summary: 'done',
      resultPreview: '{"ok":true}',
    });
  });
});

import { describe, expect, it } from 'vitest';
import { toolChipLabel } from '../../shared/contract';
import { describeCall, describeError, describeResult } from './tool-chips';

describe('tool chips', () => {
  it('names the verb and its path, and keeps only a short preview of a file body', () => {
    const body = 'x = 1\n'.repeat(200);
    const start = describeCall('write-file', { path: 'src/loaders.py', content: body });
    expect(start.target).toBe('src/loaders.py');
    const content = start.args.find((a) => a.name === 'content')!;
    expect(content.value.length).toBeLessThan(300);
    expect(content.omitted).toBe(body.length - content.value.length);
    const end = describeResult('write-file', {}, { path: 'src/loaders.py', bytes_written: 312, created: true });
    expect(toolChipLabel({ verb: 'write-file', target: start.target, summary: end.summary })).toBe('write-file src/loaders.py · 312 bytes · new');
  });

  it('summarizes runs by exit code, timeouts, and shows the head of the output', () => {
    const ok = describeResult('run-file', {}, { stdout: 'rows 3\n', stderr: '', returncode: 0, duration_ms: 5, timed_out: false, script: 'scripts/step_01_run_x.py' });
    expect(ok).toMatchObject({ status: 'ok', summary: 'exit 0', resultPreview: 'rows 3' });
    const failed = describeResult('run-file', {}, { stdout: '', stderr: 'Traceback\n', returncode: 1, duration_ms: 5, timed_out: false, script: 's' });
    expect(failed).toMatchObject({ status: 'error', summary: 'exit 1' });
    expect(failed.resultPreview).toContain('[stderr]');
    const slow = describeResult('execute-code', {}, { stdout: 'y'.repeat(5000), stderr: '', returncode: -9, duration_ms: 5, timed_out: true, script: 'scripts/step_02_loop.py' });
    expect(slow).toMatchObject({ status: 'error', summary: 'timed out', target: 'scripts/step_02_loop.py' });
    expect(slow.resultPreview).toMatch(/more characters\)$/);
  });

  it('describes edits, notebook cells and refusals in one line', () => {
    expect(describeResult('edit-file', { mode: 'replace' }, { path: 'a.py', bytes_written: 40, replacements: 1 }).summary).toBe('1 replacement · 40 bytes');
    expect(describeResult('edit-file', { mode: 'overwrite' }, { path: 'a.py', bytes_written: 9, replacements: 0 }).summary).toBe('overwritten · 9 bytes');
    const cell = describeResult('run-notebook-cell', {}, { cell_id: 'c', status: 'ok', exec_count: 4, duration_ms: 3, had_error: false, outputs: [{ output_type: 'stream', name: 'stdout', text: '47\n' }] });
    expect(cell).toMatchObject({ status: 'ok', summary: 'ok · [4]', resultPreview: '47' });
    const unsaved = describeResult('edit-notebook-cell', {}, { cell_id: 'c', source_len: 3, saved: false, not_saved_reason: 'a.ipynb has unsaved edits by the operator' });
    expect(unsaved).toMatchObject({ summary: 'cell c edited · not saved', resultPreview: 'a.ipynb has unsaved edits by the operator' });
    expect(describeResult('delete-notebook-cell', {}, { cell_id: 'c', remaining_cells: 2, saved: true }).summary).toBe('2 cells left');
    expect(describeError('"src/x.py" does not exist (or is not a file); nothing was run\nmore').summary).toBe('"src/x.py" does not exist (or is not a file); nothing was run');
  });
});

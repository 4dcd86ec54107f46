import { readFileSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyEvent } from '../../shared/contract';
import { KilnError } from '../../shared/errors';
import { JupyterServerManager } from '../kernel';
import { NotebookService } from '../notebook';
import { makeWorkspace, announcingNotebooks } from '../../test-support/event-hub';
import type { Workspace } from '../workspace';
import { NotebookServiceVerbTarget, Verbs } from '.';

let root: string;
let stateDir: string;
let workspace: Workspace;
let events: AnyEvent[];
let jupyter: JupyterServerManager;
let notebooks: NotebookService;
let verbs: Verbs;

const NOTEBOOK = {
  cells: [{ cell_type: 'code', execution_count: null, id: 'first', metadata: {}, outputs: [], source: ['x = 20'] }],
  metadata: { kernelspec: { display_name: 'Python 3 (ipykernel)', language: 'python', name: 'python3' } },
  nbformat: 4,
  nbformat_minor: 5,
};

type DiskCell = {
  id: string;
  cell_type: string;
  source: string | string[];
  outputs?: unknown[];
  execution_count?: number | null;
};
const onDisk = (rel: string): DiskCell[] =>
  (JSON.parse(readFileSync(path.join(root, rel), 'utf8')) as { cells: DiskCell[] }).cells;
const sourceOf = (cell: DiskCell) => (Array.isArray(cell.source) ? cell.source.join('') : cell.source);

async function codeOf(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof KilnError) return { code: err.code, message: err.message };
    throw err;
  }
  throw new Error('expected the call to fail');
}

beforeAll(async () => {
  const made = await makeWorkspace('kiln-verbs-nb-');
  ({ root, workspace, events } = made);
  stateDir = await fs.mkdtemp(path.join(os.tmpdir(), 'kiln-verbs-nb-state-'));
  await fs.mkdir(path.join(root, 'src'));
  await fs.writeFile(path.join(root, 'src/helpers.py'), 'def double(v):\n    return v * 2\n');
  await fs.writeFile(path.join(root, 'analysis.ipynb'), JSON.stringify(NOTEBOOK, null, 1));
  jupyter = new JupyterServerManager({ rootDir: root, stateDir });
  notebooks = announcingNotebooks(made.hub, new NotebookService({ workspace, jupyter }));
  verbs = new Verbs({ workspace, notebooks: new NotebookServiceVerbTarget({ notebooks }), python: '/usr/bin/python3' });
});

afterAll(async () => {
  await verbs?.dispose();
  await notebooks?.dispose();
  await jupyter?.dispose();
  await fs.rm(root, { recursive: true, force: true });
  await fs.rm(stateDir, { recursive: true, force: true });
});

describe('notebook verbs on the notebook service', () => {
  it('append, run, edit, rerun and delete cells; the file on disk follows and scripts/ stays empty', async () => {
    const appended = await verbs.call('append-notebook-cell', {
      notebook: 'analysis.ipynb',
      source: '# Notes',
      cell_type: 'markdown',
    });
    expect(appended.index).toBe(1);
    expect(onDisk('analysis.ipynb').map((c) => c.cell_type)).toEqual(['code', 'markdown']);
    // Agent edits reach an open notebook's UI as whole-document changes.
    expect(events.some((e) => e.channel === 'notebook.changed')).toBe(true);

    const rerunFirst = await verbs.call('rerun-notebook-cell', { notebook: 'analysis.ipynb', cell_id: 'first' });
    // The kernel is the operator's own process: the result says it ran unsandboxed.
    expect(rerunFirst).toMatchObject({
      cell_id: 'first',
      status: 'ok',
      had_error: false,
      exec_count: 1,
      sandboxed: false,
    });

    // Earlier state is in scope and src/ is importable.
    const ran = await verbs.call('run-notebook-cell', {
      notebook: 'analysis.ipynb',
      source: 'from helpers import double\nprint(double(x) + 2)',
    });
    expect(ran.had_error).toBe(false);
    expect(ran.outputs).toEqual([expect.objectContaining({ output_type: 'stream', name: 'stdout', text: '42\n' })]);
    const cells = onDisk('analysis.ipynb');
    expect(cells).toHaveLength(3);
    expect(cells[2].id).toBe(ran.cell_id);
    expect(cells[2].outputs).toHaveLength(1);

    const edited = await verbs.call('edit-notebook-cell', {
      notebook: 'analysis.ipynb',
      cell_id: ran.cell_id,
      source: 'raise ValueError("nope")',
    });
    expect(edited).toEqual({ cell_id: ran.cell_id, source_len: 24, saved: true });
    // Outputs are kept by an edit.
    expect(onDisk('analysis.ipynb')[2].outputs).toHaveLength(1);
    expect(sourceOf(onDisk('analysis.ipynb')[2])).toBe('raise ValueError("nope")');

    const failed = await verbs.call('rerun-notebook-cell', { notebook: 'analysis.ipynb', cell_id: ran.cell_id });
    expect(failed.had_error).toBe(true);
    expect(failed.status).toBe('error');
    const error = failed.outputs.find((o) => o.output_type === 'error') as { traceback: string[] } | undefined;
    expect(error?.traceback.join('\n')).toContain('ValueError');
    // Tracebacks reach the agent without ANSI colour codes.
    expect(error?.traceback.join('\n')).not.toContain('\u001b[');

    const retyped = await verbs.call('edit-notebook-cell', {
      notebook: 'analysis.ipynb',
      cell_id: appended.cell_id,
      source: 'plain',
      cell_type: 'raw',
    });
    expect(retyped.source_len).toBe(5);
    expect(onDisk('analysis.ipynb')[1].cell_type).toBe('raw');

    const deleted = await verbs.call('delete-notebook-cell', { notebook: 'analysis.ipynb', cell_id: appended.cell_id });
    expect(deleted).toEqual({ cell_id: appended.cell_id, remaining_cells: 2, saved: true });
    expect(onDisk('analysis.ipynb').map((c) => c.id)).toEqual(['first', ran.cell_id]);
    await expect(fs.access(path.join(root, 'scripts'))).rejects.toThrow();
  });

  it('runs no cell in an untrusted folder: E_NO_SANDBOX without a sandbox, as execute-code; the notebook is untouched', async () => {
    const before = readFileSync(path.join(root, 'analysis.ipynb'), 'utf8');
    const canary = path.join(stateDir, 'cell-canary');
    const target = new NotebookServiceVerbTarget({ notebooks });
    for (const env of [{ ...process.env, KILN_BWRAP: 'none' }, process.env]) {
      const untrusted = new Verbs({
        workspace,
        notebooks: target,
        python: '/usr/bin/python3',
        env,
        trusted: () => false,
      });
      try {
        const ran = await codeOf(
          untrusted.call('run-notebook-cell', {
            notebook: 'analysis.ipynb',
            source: `open(${JSON.stringify(canary)}, 'w')`,
          }),
        );
        expect(ran.code).toBe('E_NO_SANDBOX');
        if (env.KILN_BWRAP !== 'none') expect(ran.message).toContain('execute-code');
        expect(
          (await codeOf(untrusted.call('rerun-notebook-cell', { notebook: 'analysis.ipynb', cell_id: 'first' }))).code,
        ).toBe('E_NO_SANDBOX');
      } finally {
        await untrusted.dispose();
      }
    }
    expect(readFileSync(path.join(root, 'analysis.ipynb'), 'utf8')).toBe(before);
    await expect(fs.access(canary)).rejects.toThrow();
  });

  it('names an unknown cell id or notebook', async () => {
    const cell = await codeOf(verbs.call('rerun-notebook-cell', { notebook: 'analysis.ipynb', cell_id: 'nope' }));
    expect(cell).toEqual({ code: 'E_NOT_FOUND', message: expect.stringContaining('"nope"') });
    const edit = await codeOf(
      verbs.call('edit-notebook-cell', { notebook: 'analysis.ipynb', cell_id: 'ghost', source: 'x' }),
    );
    expect(edit).toEqual({ code: 'E_NOT_FOUND', message: expect.stringContaining('"ghost"') });
    expect(
      (await codeOf(verbs.call('delete-notebook-cell', { notebook: 'analysis.ipynb', cell_id: 'ghost' }))).code,
    ).toBe('E_NOT_FOUND');
    const notebook = await codeOf(verbs.call('append-notebook-cell', { notebook: 'missing.ipynb', source: 'x' }));
    expect(notebook).toEqual({ code: 'E_NOT_FOUND', message: expect.stringContaining('missing.ipynb') });
    expect((await codeOf(verbs.call('append-notebook-cell', { notebook: 'src/helpers.py', source: 'x' }))).code).toBe(
      'E_BAD_REQUEST',
    );
    expect((await codeOf(verbs.call('append-notebook-cell', { notebook: '../x.ipynb', source: 'x' }))).code).toBe(
      'E_OUTSIDE_WORKSPACE',
    );
  });

  it('does not save over the operator’s unsaved edits, and every cell verb says its change is not on disk', async () => {
    await notebooks.editCell('analysis.ipynb', 'first', 'x = 21', { origin: 'operator' });
    const before = readFileSync(path.join(root, 'analysis.ipynb'), 'utf8');
    const appended = await verbs.call('append-notebook-cell', { notebook: 'analysis.ipynb', source: 'y = 1' });
    expect(appended).toMatchObject({
      saved: false,
      not_saved_reason: expect.stringContaining('unsaved edits by the operator'),
    });
    const edited = await verbs.call('edit-notebook-cell', {
      notebook: 'analysis.ipynb',
      cell_id: appended.cell_id,
      source: 'y = 2',
    });
    expect(edited.saved).toBe(false);
    const ran = await verbs.call('run-notebook-cell', { notebook: 'analysis.ipynb', source: '6 * 7' });
    expect(ran).toMatchObject({ status: 'ok', saved: false });
    expect((await verbs.call('rerun-notebook-cell', { notebook: 'analysis.ipynb', cell_id: ran.cell_id })).saved).toBe(
      false,
    );
    expect((await verbs.call('delete-notebook-cell', { notebook: 'analysis.ipynb', cell_id: ran.cell_id })).saved).toBe(
      false,
    );
    expect(readFileSync(path.join(root, 'analysis.ipynb'), 'utf8')).toBe(before);
    const document = await notebooks.get('analysis.ipynb');
    expect(document.dirty).toBe(true);
    expect(document.cells.at(-1)?.source).toBe('y = 2');
    // The operator's Save writes both their edit and the agent's.
    await notebooks.save('analysis.ipynb');
    const saved = JSON.parse(readFileSync(path.join(root, 'analysis.ipynb'), 'utf8')) as {
      cells: { source: string[] | string }[];
    };
    const sources = saved.cells.map((c) => (Array.isArray(c.source) ? c.source.join('') : c.source));
    expect(sources).toContain('x = 21');
    expect(sources).toContain('y = 2');
  });
});

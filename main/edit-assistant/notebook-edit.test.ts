import * as fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ModelServer, reply, type ChatRequestBody } from '../../test-support/model-server';
import { nbformatWrites, type CellSpec } from '../../test-support/nbformat-build';
import { isKilnError } from '../../shared/errors';
import { diffNotebookTexts } from '../notebook';
import { ConfigService } from '../config';
import { Workspace } from '../workspace';
import { EditAssistantService } from './index';

/*
 * The Edit assistant on a notebook, end to end in main: real files, the scripted model over real HTTP, nbformat
 * (Debian's Python) as the judge of what lands on disk.
 */

let root: string;
let dataDir: string;
let server: ModelServer;
let workspace: Workspace;
let config: ConfigService;
let svc: EditAssistantService;

const NB = 'analysis.ipynb';

const BASE_CELLS: CellSpec[] = [
  { id: 'a1', type: 'markdown', source: '# Title' },
  {
    id: 'a2',
    source: 'x = 1\nprint(x)',
    execution_count: 1,
    outputs: [{ output_type: 'stream', name: 'stdout', text: '1\n' }],
  },
  { id: 'a3', source: 'y = 2' },
  { id: 'a4', source: 'z = 3' },
];

/** One source change (a2), one new cell (after a2), one deletion (a4). */
const PROPOSED = [
  { replaces: 'a1', cell_type: 'markdown', source: '# Title' },
  { replaces: 'a2', cell_type: 'code', source: 'x = 10\nprint(x)' },
  { replaces: null, cell_type: 'code', source: 'w = x * 2' },
  { replaces: 'a3', cell_type: 'code', source: 'y = 2' },
];

const disk = () => fs.readFile(path.join(root, NB), 'utf8');
const systemText = (req: ChatRequestBody) => String(req.messages.find((m) => m.role === 'system')?.content ?? '');
const lastUserText = (req: ChatRequestBody) =>
  String(req.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '');

beforeEach(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'kiln-nbedit-')));
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'kiln-data-'));
  server = await ModelServer.start({ models: ['scripted-model'] });
  workspace = await Workspace.open({ root });
  config = new ConfigService({ workspaceRoot: workspace.root, watch: false, projectTrusted: () => true });
  await config.start();
  await fs.mkdir(path.join(root, '.kiln'));
  await fs.writeFile(
    path.join(root, '.kiln', 'config.yaml'),
    `models:\n  scripted:\n    provider: openai-compatible\n    base_url: ${server.url}\n    model: scripted-model\nfile_editing:\n  model: scripted\n`,
  );
  await config.reload();
  svc = new EditAssistantService({ files: workspace, workspaceRoot: workspace.root, config, dataDir });
});

afterEach(async () => {
  await svc.dispose();
  await config.dispose();
  await server.close();
  await fs.rm(root, { recursive: true, force: true });
  await fs.rm(dataDir, { recursive: true, force: true });
});

async function propose(cells: unknown[], base = BASE_CELLS, minor = 5) {
  const [text] = nbformatWrites([{ minor, cells: base }]);
  await fs.writeFile(path.join(root, NB), text);
  await svc.openSession(NB);
  server.enqueue(reply.tool('propose_notebook', { cells }, 'Changed three cells.'));
  const outcome = await svc.send(NB, 'scale x, add w, drop z');
  expect(outcome.status).toBe('completed');
  const proposal = await svc.getProposal(NB, outcome.proposalId!);
  const { diff } = diffNotebookTexts(proposal.baselineContent, proposal.content);
  return { base: text, proposal, diff };
}

/** The change id of the cell change with this status. */
function changeOf(diff: ReturnType<typeof diffNotebookTexts>['diff'], status: string): string {
  return diff.cells.find((c) => c.status === status)!.changeId;
}

describe('edit assistant on a notebook', () => {
  it('shows the model cells (not JSON) and gives it propose_notebook only', async () => {
    await propose(PROPOSED);
    const req = server.lastChatRequest!;
    const system = systemText(req);
    expect(system).toContain('--- cell a2 (code) [1]\nx = 1\nprint(x)\n--- outputs:\n[stdout] 1');
    expect(system).toContain('--- cell a1 (markdown)\n# Title');
    expect(system).not.toContain('"cell_type"');
    expect(req.tools?.map((t) => t.function.name)).toEqual(['propose_notebook']);
  });

  it('accept 2, reject 1: the file is nbformat’s own write of the expected notebook; the model hears per cell', async () => {
    const { proposal, diff } = await propose(PROPOSED);
    // Three cell changes: a2's source, the new cell, a4's deletion; a1 and a3 are untouched.
    expect(diff.cells.filter((c) => c.status !== 'unchanged').map((c) => [c.status, c.kinds])).toEqual([
      ['modified', ['source']],
      ['added', ['added']],
      ['deleted', ['deleted']],
    ]);
    const first = await svc.decideCells(NB, proposal.id, { accept: [changeOf(diff, 'modified')], reject: [] });
    expect(first.snapshot.proposals[0].status).toBe('pending');
    await svc.decideCells(NB, proposal.id, { accept: [changeOf(diff, 'added')], reject: [] });
    const last = await svc.decideCells(NB, proposal.id, { accept: [], reject: [changeOf(diff, 'deleted')] });
    expect(last.snapshot.proposals[0].status).toBe('accepted');
    expect(last.snapshot.proposals[0].cells?.decided).toEqual({
      [changeOf(diff, 'modified')]: 'accepted',
      [changeOf(diff, 'added')]: 'accepted',
      [changeOf(diff, 'deleted')]: 'rejected',
    });

    const onDisk = await disk();
    const newId = (JSON.parse(onDisk) as { cells: { id: string }[] }).cells[2].id;
    const [expected] = nbformatWrites([
      {
        cells: [
          BASE_CELLS[0],
          { ...BASE_CELLS[1], source: 'x = 10\nprint(x)' },
          { id: newId, source: 'w = x * 2' },
          BASE_CELLS[2],
          BASE_CELLS[3],
        ],
      },
    ]);
    expect(onDisk).toBe(expected);

    // Decided stays decided.
    const again = await svc
      .decideCells(NB, proposal.id, { accept: [changeOf(diff, 'deleted')], reject: [] })
      .catch((e: unknown) => e);
    expect(isKilnError(again, 'E_BAD_REQUEST')).toBe(true);

    // Markers in the transcript, and one note per proposal for the model's next turn.
    const markers = last.snapshot.transcript
      .filter((e) => e.type === 'marker')
      .map((e) => (e as { text: string }).text);
    expect(markers).toEqual([
      'Accepted the change to cell a2 (source)',
      'Accepted the new cell at position 3',
      'Rejected the deletion of cell a4',
    ]);
    server.enqueue(reply.text('Noted.'));
    await svc.send(NB, 'thanks');
    const user = lastUserText(server.lastChatRequest!);
    expect(user).toContain(
      'ACCEPTED the change to cell a2 (source); the new cell at position 3 and REJECTED the deletion of cell a4',
    );
    // The prompt's cells are the notebook now (the new cell with the id Kiln gave it).
    expect(systemText(server.lastChatRequest!)).toContain(`--- cell ${newId} (code)\nw = x * 2`);
  });

  it('Reject all leaves the notebook as it was; the proposal is rejected and cannot be accepted after', async () => {
    const { base, proposal } = await propose(PROPOSED);
    const snapshot = await svc.rejectProposal(NB, proposal.id);
    expect(snapshot.proposals[0].status).toBe('rejected');
    expect(Object.values(snapshot.proposals[0].cells!.decided)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(await disk()).toBe(base);
    const late = await svc.acceptProposal(NB, proposal.id).catch((e: unknown) => e);
    expect(isKilnError(late, 'E_BAD_REQUEST')).toBe(true);
    expect(await disk()).toBe(base);
  });

  it('a 4.4 notebook (no ids): the model gets positional ids, which map back to the cells', async () => {
    const cells = BASE_CELLS.map(({ id: _id, ...cell }) => cell);
    const { proposal } = await propose(
      [
        { replaces: '#1', cell_type: 'markdown', source: '# Title' },
        { replaces: '#2', cell_type: 'code', source: 'x = 1\nprint(x)\nprint(x + 1)' },
        { replaces: '#3', cell_type: 'code', source: 'y = 2' },
        { replaces: '#4', cell_type: 'code', source: 'z = 3' },
      ],
      cells,
      4,
    );
    expect(systemText(server.lastChatRequest!)).toContain('--- cell #2 (code) [1]');
    await svc.acceptProposal(NB, proposal.id);
    const [expected] = nbformatWrites([
      { minor: 4, cells: cells.map((c, i) => (i === 1 ? { ...c, source: 'x = 1\nprint(x)\nprint(x + 1)' } : c)) },
    ]);
    expect(await disk()).toBe(expected);
  });

  it('an unknown cell id is no proposal: the model is told, nothing is written', async () => {
    const [text] = nbformatWrites([{ cells: BASE_CELLS }]);
    await fs.writeFile(path.join(root, NB), text);
    server.enqueue(reply.tool('propose_notebook', { cells: [{ replaces: 'nope', cell_type: 'code', source: '' }] }));
    const outcome = await svc.send(NB, 'go');
    expect(outcome.status).toBe('error');
    expect(outcome.error?.message).toContain('there is no cell "nope"');
    expect(await disk()).toBe(text);
    server.enqueue(reply.text('ok'));
    await svc.send(NB, 'again');
    expect(lastUserText(server.lastChatRequest!)).toContain('your last propose_notebook call could not be used');
  });

  it('changed on disk after the proposal: Accept is refused; Review against current notebook re-diffs it', async () => {
    const { proposal, diff } = await propose(PROPOSED);
    await svc.decideCells(NB, proposal.id, { accept: [], reject: [changeOf(diff, 'deleted')] });
    // Another program rewrites the notebook: a3's source changes.
    const [changed] = nbformatWrites([
      { cells: BASE_CELLS.map((c) => (c.id === 'a3' ? { ...c, source: 'y = 20' } : c)) },
    ]);
    await fs.writeFile(path.join(root, NB), changed);
    const refused = await svc
      .decideCells(NB, proposal.id, { accept: [changeOf(diff, 'modified')], reject: [] })
      .catch((e: unknown) => e);
    expect(isKilnError(refused, 'E_CHANGED_ON_DISK')).toBe(true);
    expect((refused as Error).message).toContain('Review against current notebook');
    expect(await disk()).toBe(changed);

    const rebased = await svc.reviewAgainstDisk(NB, proposal.id);
    expect(rebased.baselineContent).toBe(changed);
    const now = diffNotebookTexts(rebased.baselineContent, rebased.content).diff;
    // a2's change and the new cell, and the proposal's a3 (the other program's edit, shown for the operator to
    // reject); the rejected deletion of a4 stays out.
    expect(now.cells.filter((c) => c.status !== 'unchanged').map((c) => [c.status, c.oldCellId])).toEqual([
      ['modified', 'a2'],
      ['added', null],
      ['modified', 'a3'],
    ]);
    const a3 = now.cells.find((c) => c.oldCellId === 'a3')!.changeId;
    const done = await svc.decideCells(NB, proposal.id, {
      accept: now.changeIds.filter((id) => id !== a3),
      reject: [a3],
    });
    expect(done.snapshot.proposals[0].status).toBe('accepted');
    const written = JSON.parse(await disk()) as { cells: { id: string; source: string[] }[] };
    expect(written.cells.map((c) => c.source.join(''))).toEqual([
      '# Title',
      'x = 10\nprint(x)',
      'w = x * 2',
      'y = 20',
      'z = 3',
    ]);
  });
});

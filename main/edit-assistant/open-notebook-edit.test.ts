import * as fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ModelServer, reply, type ChatRequestBody } from '../../test-support/model-server';
import { nbformatWrites, type CellSpec } from '../../test-support/nbformat-build';
import { isKilnError } from '../../shared/errors';
import { applyNotebookChanges, diffNotebookTexts } from '../notebook';
import { ConfigService } from '../config';
import { Workspace } from '../workspace';
import { EditAssistantService } from './index';

/*
 * A notebook open with unsaved edits: proposed against them, accepted into the open notebook (main hands back the
 * cell edits and writes nothing), bound to the open notebook's cells. The open notebook is a map of bytes here, as
 * main's notebook service reports them (its hot-exit backup); real files and the scripted model over real HTTP.
 */

let root: string;
let dataDir: string;
let server: ModelServer;
let workspace: Workspace;
let config: ConfigService;
let svc: EditAssistantService;
/** The open notebooks' unsaved bytes (absent: not open; null: open and clean). */
let open: Map<string, string | null>;

const NB = 'analysis.ipynb';
const BASE_CELLS: CellSpec[] = [
  { id: 'a1', type: 'markdown', source: '# Title' },
  { id: 'a2', source: 'x = 1' },
  { id: 'a3', source: 'y = 2' },
];
const withSource = (id: string, source: string, cells = BASE_CELLS) =>
  cells.map((c) => (c.id === id ? { ...c, source } : c));
const disk = () => fs.readFile(path.join(root, NB), 'utf8');
const systemText = (req: ChatRequestBody) => String(req.messages.find((m) => m.role === 'system')?.content ?? '');

beforeEach(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'kiln-nbopen-')));
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
  open = new Map();
  svc = new EditAssistantService({
    files: workspace,
    workspaceRoot: workspace.root,
    config,
    dataDir,
    unsavedNotebook: (rel) => open.get(rel),
  });
});

afterEach(async () => {
  await svc.dispose();
  await config.dispose();
  await server.close();
  await fs.rm(root, { recursive: true, force: true });
  await fs.rm(dataDir, { recursive: true, force: true });
});

/** Disk holds BASE_CELLS; the open notebook has an unsaved edit of a3; the model edits a2 and adds a cell. */
async function proposeOverUnsaved() {
  const [onDisk, unsaved] = nbformatWrites([{ cells: BASE_CELLS }, { cells: withSource('a3', 'y = 20') }]);
  await fs.writeFile(path.join(root, NB), onDisk);
  open.set(NB, unsaved);
  await svc.openSession(NB);
  server.enqueue(
    reply.tool('propose_notebook', {
      cells: [
        { replaces: 'a1', cell_type: 'markdown', source: '# Title' },
        { replaces: 'a2', cell_type: 'code', source: 'x = 10' },
        { replaces: null, cell_type: 'code', source: 'w = x * 2' },
        { replaces: 'a3', cell_type: 'code', source: 'y = 20' },
      ],
    }),
  );
  const outcome = await svc.send(NB, 'scale x, add w');
  const proposal = await svc.getProposal(NB, outcome.proposalId!);
  const { diff } = diffNotebookTexts(proposal.baselineContent, proposal.content);
  const id = (status: string) => diff.cells.find((c) => c.status === status)!.changeId;
  return { onDisk, unsaved, proposal, diff, modified: id('modified'), added: id('added') };
}

describe('edit assistant on a notebook open with unsaved edits', () => {
  it('proposes against the unsaved edits and accepts into the open notebook, writing nothing', async () => {
    const { onDisk, unsaved, proposal, diff, modified, added } = await proposeOverUnsaved();
    expect(systemText(server.lastChatRequest!)).toContain('y = 20');
    // The unsaved edit of a3 is the base, not a change.
    expect(proposal.baselineContent).toBe(unsaved);
    expect(diff.cells.filter((c) => c.status !== 'unchanged').map((c) => c.status)).toEqual(['modified', 'added']);
    expect(proposal.cells?.open).toBe(true);

    const first = await svc.decideCells(NB, proposal.id, { accept: [modified], reject: [] });
    expect(first.cellEdits).toEqual([
      { kind: 'put', replaceId: 'a2', index: 1, cell: expect.objectContaining({ id: 'a2', source: 'x = 10' }) },
    ]);
    expect(await disk()).toBe(onDisk);
    // The renderer makes the edit in the open notebook.
    open.set(NB, applyNotebookChanges(unsaved, proposal.content, [modified]));

    const second = await svc.decideCells(NB, proposal.id, { accept: [added], reject: [] });
    expect(second.cellEdits).toEqual([
      { kind: 'put', replaceId: null, index: 2, cell: expect.objectContaining({ source: 'w = x * 2' }) },
    ]);
    expect(second.snapshot.proposals[0].status).toBe('accepted');
    expect(await disk()).toBe(onDisk);
    // Whole-proposal accept has no way to hand the edits over: refused, cell decisions are the way.
    await expect(svc.acceptProposal(NB, proposal.id)).rejects.toMatchObject({ code: 'E_BAD_REQUEST' });
  });

  it('the open notebook changed since the proposal: Accept is refused, nothing decided; Review re-diffs against it', async () => {
    const { unsaved, proposal, modified, added } = await proposeOverUnsaved();
    await svc.decideCells(NB, proposal.id, { accept: [modified], reject: [] });
    const afterAccept = applyNotebookChanges(unsaved, proposal.content, [modified]);
    // The operator types into a1 before accepting the rest.
    const [typed] = nbformatWrites([
      { cells: withSource('a1', '# Title 2', withSource('a2', 'x = 10', withSource('a3', 'y = 20'))) },
    ]);
    open.set(NB, typed);
    expect(afterAccept).not.toBe(typed);
    const refused = await svc.decideCells(NB, proposal.id, { accept: [added], reject: [] }).catch((e: unknown) => e);
    expect(isKilnError(refused, 'E_CHANGED_ON_DISK')).toBe(true);
    expect((refused as Error).message).toContain('Review against current notebook');
    const still = await svc.getProposal(NB, proposal.id);
    expect(still.cells?.decided).toEqual({ [modified]: 'accepted' });

    const rebased = await svc.reviewAgainstDisk(NB, proposal.id);
    expect(rebased.baselineContent).toBe(typed);
    expect(rebased.cells?.open).toBe(true);
    const now = diffNotebookTexts(rebased.baselineContent, rebased.content).diff;
    const kinds = now.cells.filter((c) => c.status !== 'unchanged').map((c) => [c.status, c.oldCellId]);
    // The new cell, and a1 back to the proposal's title (for the operator to reject).
    expect(kinds).toEqual([
      ['modified', 'a1'],
      ['added', null],
    ]);
    const a1 = now.cells.find((c) => c.oldCellId === 'a1')!.changeId;
    const done = await svc.decideCells(NB, proposal.id, {
      accept: [now.cells.find((c) => c.status === 'added')!.changeId],
      reject: [a1],
    });
    expect(done.cellEdits).toEqual([
      { kind: 'put', replaceId: null, index: 2, cell: expect.objectContaining({ source: 'w = x * 2' }) },
    ]);
  });

  it('closed since the proposal: Accept is refused', async () => {
    const { proposal, modified } = await proposeOverUnsaved();
    open.delete(NB);
    const refused = await svc.decideCells(NB, proposal.id, { accept: [modified], reject: [] }).catch((e: unknown) => e);
    expect(isKilnError(refused, 'E_CHANGED_ON_DISK')).toBe(true);
    expect((refused as Error).message).toContain('was closed');
  });
});

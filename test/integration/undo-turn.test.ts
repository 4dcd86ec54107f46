/**
 * Undo of an Agent turn end to end in main: a real Agent turn (the AI SDK over real HTTP to the scripted model)
 * writes a file, edits another and edits a notebook cell through the verbs; local history holds the turn, and
 * undo puts all three back byte-exact, leaves a file the operator changed since until told, and can be redone.
 */
import * as fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RequestArgs, RequestChannel, RequestResult } from '../../shared/contract';
import { reply, type ModelServer } from '../../test-support/model-server';
import { ScriptedAgentWorkspace } from '../../test-support/scripted-agent-workspace';
import { jupyterOneCellNotebook } from '../../test-support/notebook-doc';

let root: string;
let server: ModelServer;
let workspace: ScriptedAgentWorkspace;

// Jupyter's own formatting (one-space indent, no trailing newline): undo must give these bytes back exactly.
const NOTEBOOK = jupyterOneCellNotebook('x = 1.50');
const NOTES = 'line one\nline two\n';

const call = <C extends RequestChannel>(channel: C, args: RequestArgs<C>): Promise<RequestResult<C>> =>
  workspace.call(channel, args);

const read = (rel: string) => fs.readFile(path.join(root, rel), 'utf8');
const exists = (rel: string) =>
  fs.stat(path.join(root, rel)).then(
    () => true,
    () => false,
  );

beforeEach(async () => {
  workspace = await ScriptedAgentWorkspace.start({ 'notes.md': NOTES, 'analysis.ipynb': NOTEBOOK });
  ({ root, server } = workspace);
});

afterEach(() => workspace.close());

async function agentTurn(): Promise<string> {
  server.setReplies([
    reply.tool('write-file', { path: 'src/new.py', content: 'print("new")\n' }),
    reply.tool('edit-file', { path: 'notes.md', mode: 'replace', old: 'line two\n', new: 'line 2 by agent\n' }),
    reply.tool('edit-notebook-cell', { notebook: 'analysis.ipynb', cell_id: 'c1', source: 'x = 2' }),
    reply.text('Done.'),
  ]);
  const outcome = await call('agent.send', { text: 'Change things.' });
  expect(outcome.status).toBe('completed');
  expect(await read('notes.md')).toBe('line one\nline 2 by agent\n');
  expect(await read('analysis.ipynb')).toContain('"x = 2"');
  return outcome.runId;
}

describe('undo of an Agent turn', () => {
  it('lists what the turn did and puts every file back byte-exact; the undo can be redone', async () => {
    const turn = await agentTurn();
    const { files } = await call('history.turn', { turn });
    expect(files.map((f) => [f.path, f.change, f.kind ?? 'file']).sort()).toEqual([
      ['analysis.ipynb', 'changed', 'file'],
      ['notes.md', 'changed', 'file'],
      // write-file made the folder for its file: the turn made it, so undo removes it once empty.
      ['src', 'created', 'dir'],
      ['src/new.py', 'created', 'file'],
    ]);

    const undone = await call('history.undoTurn', { turn });
    expect(undone.conflicts).toEqual([]);
    expect(undone.restored.sort()).toEqual(['analysis.ipynb', 'notes.md', 'src', 'src/new.py']);
    expect(await read('notes.md')).toBe(NOTES);
    expect(await read('analysis.ipynb')).toBe(NOTEBOOK);
    expect(await exists('src')).toBe(false);
    // Undone stays known after a reload: history says so, with what was put back.
    const after = await call('history.turn', { turn });
    expect(after.undone?.undo).toBe(undone.undo);
    expect([...(after.undone?.restored ?? [])].sort()).toEqual(['analysis.ipynb', 'notes.md', 'src', 'src/new.py']);
    expect((await call('history.turn', { turn: 'never-ran' })).undone ?? null).toBeNull();

    // The undo is a checkpoint too: undoing it redoes the turn.
    const redone = await call('history.undoTurn', { turn: undone.undo });
    expect(redone.conflicts).toEqual([]);
    expect(await read('notes.md')).toBe('line one\nline 2 by agent\n');
    expect(await read('src/new.py')).toBe('print("new")\n');
    expect(await read('analysis.ipynb')).toContain('"x = 2"');
    expect((await call('history.turn', { turn })).undone ?? null).toBeNull();
  });

  it('leaves a file the operator changed after the turn until told, then keeps or restores it as asked', async () => {
    const turn = await agentTurn();
    const current = await call('workspace.read', { path: 'notes.md' });
    await call('workspace.write', { path: 'notes.md', text: 'mine now\n', expectedHash: current.hash });

    const undone = await call('history.undoTurn', { turn });
    expect(undone.restored.sort()).toEqual(['analysis.ipynb', 'src', 'src/new.py']);
    expect(undone.conflicts).toEqual([{ path: 'notes.md', currentText: 'mine now\n', beforeText: NOTES }]);
    // Keep current: nothing more is asked of main; the operator's text stays.
    expect(await read('notes.md')).toBe('mine now\n');

    // Restore anyway, for that file only.
    const forced = await call('history.undoTurn', { turn, paths: ['notes.md'], force: true });
    expect(forced.restored).toEqual(['notes.md']);
    expect(await read('notes.md')).toBe(NOTES);
    // The operator's version is not lost: it is in the file's history.
    const { entries } = await call('history.list', { path: 'notes.md' });
    const texts = await Promise.all(entries.map((e) => call('history.read', { path: 'notes.md', id: e.id })));
    expect(texts.map((t) => t.text)).toContain('mine now\n');
  });
});

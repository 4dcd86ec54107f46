import { describe, expect, it } from 'vitest';
import { withWriteCause } from './cause';
import { UnsavedAgentEdits } from './unsaved-agent-edits';

/** The backups' side files as a map: what a run keeps there, the next run lists. */
function besideInMemory() {
  const kept = new Map<string, string>();
  const beside = {
    keepBeside: async (rel: string, text: string | null) =>
      void (text === null ? kept.delete(rel) : kept.set(rel, text)),
    listBeside: async () => [...kept.values()],
  };
  return { kept, beside };
}

describe('UnsavedAgentEdits', () => {
  it("keeps a turn's first before and last after per notebook, and nothing outside a turn", () => {
    const edits = new UnsavedAgentEdits();
    edits.noteChange('a.ipynb', 'v0', 'v1', 'h0', 1);
    expect(edits.pathsOf('t1')).toEqual([]);
    withWriteCause({ turn: 't1' }, () => {
      edits.noteChange('a.ipynb', 'v0', 'v1', 'h0', 2);
      edits.noteChange('a.ipynb', 'v1', 'v2', 'h0', 3);
      // A verb that changed nothing (a run refused before it started) is no change of the turn.
      edits.noteChange('b.ipynb', 'w0', 'w0', 'h1', 4);
    });
    // One step: nothing changed the notebook between the two verbs.
    expect(edits.of('t1', 'a.ipynb')).toEqual({
      steps: [{ before: 'v0', after: 'v2', at: 3 }],
      diskHash: 'h0',
      firstAt: 2,
      at: 3,
    });
    expect(edits.pathsOf('t1')).toEqual(['a.ipynb']);
  });

  it('lists the turns of a notebook newest first and follows a move of its folder', () => {
    const edits = new UnsavedAgentEdits();
    withWriteCause({ turn: 't1' }, () => edits.noteChange('nb/a.ipynb', 'v0', 'v1', null, 1));
    withWriteCause({ turn: 't2' }, () => edits.noteChange('nb/a.ipynb', 'v1', 'v2', null, 2));
    expect(edits.turnsOf('nb/a.ipynb')).toEqual(['t2', 't1']);
    edits.applyMove('nb', 'done');
    expect(edits.turnsOf('nb/a.ipynb')).toEqual([]);
    expect(edits.turnsOf('done/a.ipynb')).toEqual(['t2', 't1']);
    expect(edits.of('t1', 'done/a.ipynb')?.steps.at(-1)?.after).toBe('v1');
  });

  it('keeps a step per verb when the notebook changed between them (the operator edited it)', () => {
    const edits = new UnsavedAgentEdits();
    withWriteCause({ turn: 't1' }, () => {
      edits.noteChange('a.ipynb', 'v0', 'v1', 'h0', 1);
      edits.noteChange('a.ipynb', 'v1 + mine', 'v2', 'h0', 2);
    });
    expect(edits.of('t1', 'a.ipynb')?.steps).toEqual([
      { before: 'v0', after: 'v1', at: 1 },
      { before: 'v1 + mine', after: 'v2', at: 2 },
    ]);
  });

  it('keeps the record beside the backups: a new run loads it; a move and the bounds rewrite it', async () => {
    const { kept, beside } = besideInMemory();
    const first = new UnsavedAgentEdits();
    first.persistIn(beside);
    await first.loaded();
    withWriteCause({ turn: 't1' }, () => {
      first.noteChange('a.ipynb', 'v0 "é"', 'v1\n', 'h0', 1);
      first.noteChange('a.ipynb', 'v1 + mine', 'v2', 'h0', 2);
    });
    withWriteCause({ turn: 't2' }, () => first.noteChange('b.ipynb', 'w0', 'w1', null, 3));
    first.applyMove('a.ipynb', 'c.ipynb');
    await first.flush();
    expect([...kept.keys()].sort()).toEqual(['b.ipynb', 'c.ipynb']);

    const second = new UnsavedAgentEdits();
    second.persistIn(beside);
    await second.loaded();
    expect(second.of('t1', 'c.ipynb')).toEqual(first.of('t1', 'c.ipynb'));
    expect(second.turnsOf('b.ipynb')).toEqual(['t2']);
    // A file cut short (a kill mid-write) is no record.
    kept.set('b.ipynb', kept.get('b.ipynb')!.slice(0, -1));
    const third = new UnsavedAgentEdits();
    third.persistIn(beside);
    await third.loaded();
    expect(third.turnsOf('b.ipynb')).toEqual([]);
    expect(third.turnsOf('c.ipynb')).toEqual(['t1']);
  });

  it("keeps an earlier run's turns of a notebook a turn changes before that record is loaded", async () => {
    const { kept, beside } = besideInMemory();
    const first = new UnsavedAgentEdits();
    first.persistIn(beside);
    withWriteCause({ turn: 't1' }, () => first.noteChange('a.ipynb', 'v0', 'v1', null, 1));
    await first.flush();

    // The next run's first verb comes while the listing of what was kept is still on its way.
    let listed!: () => void;
    const listing = new Promise<void>((resolve) => (listed = resolve));
    const second = new UnsavedAgentEdits();
    second.persistIn({ ...beside, listBeside: () => listing.then(() => [...kept.values()]) });
    withWriteCause({ turn: 't2' }, () => second.noteChange('a.ipynb', 'v1', 'v2', null, 2));
    listed();
    await second.loaded();
    await second.flush();

    const third = new UnsavedAgentEdits();
    third.persistIn(beside);
    await third.loaded();
    expect(third.turnsOf('a.ipynb')).toEqual(['t2', 't1']);
  });

  it('keeps the newest 50 turns', () => {
    const edits = new UnsavedAgentEdits();
    for (let n = 1; n <= 51; n++)
      withWriteCause({ turn: `t${n}` }, () => edits.noteChange('a.ipynb', 'v0', `v${n}`, null, n));
    expect(edits.of('t1', 'a.ipynb')).toBeUndefined();
    expect(edits.turnsOf('a.ipynb')).toHaveLength(50);
    expect(edits.turnsOf('a.ipynb')[0]).toBe('t51');
  });
});

import { describe, expect, it } from 'vitest';
import { withWriteCause } from './cause';
import { UnsavedAgentEdits } from './unsaved-agent-edits';

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
    expect(edits.of('t1', 'a.ipynb')).toEqual({ base: 'v0', left: 'v2', diskHash: 'h0', firstAt: 2, at: 3 });
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
    expect(edits.of('t1', 'done/a.ipynb')?.left).toBe('v1');
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

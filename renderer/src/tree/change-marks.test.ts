import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ChangeMarks, rowTitle } from './change-marks';

let marks: ChangeMarks;
let notified = 0;

beforeEach(() => {
  vi.useFakeTimers();
  notified = 0;
  marks = new ChangeMarks(() => notified++, 1000);
});

afterEach(() => {
  marks.dispose();
  vi.useRealTimers();
});

describe('change marks', () => {
  it('keeps a "new" badge on a file an agent created until it is opened; the flash passes', () => {
    marks.apply({ type: 'created', path: 'src/a.py', isDir: false, origin: 'agent' });
    expect(marks.newMarkOf('src/a.py')).toEqual({ origin: 'agent' });
    expect(marks.flashOf('src/a.py')).toEqual({ origin: 'agent', change: 'created' });
    expect(rowTitle('src/a.py', marks.newMarkOf('src/a.py'), marks.flashOf('src/a.py'))).toBe(
      'src/a.py — created by the agent; new until you open it',
    );
    vi.advanceTimersByTime(1000);
    expect(marks.flashOf('src/a.py')).toBeUndefined();
    expect(marks.newMarkOf('src/a.py')).toBeDefined();
    const before = notified;
    marks.opened('src/a.py');
    expect(marks.newMarkOf('src/a.py')).toBeUndefined();
    expect(notified).toBe(before + 1);
  });

  it('only flashes an updated file, naming who changed it', () => {
    marks.apply({ type: 'updated', path: 'src/b.py', isDir: false, origin: 'agent' });
    expect(marks.newMarkOf('src/b.py')).toBeUndefined();
    expect(rowTitle('src/b.py', undefined, marks.flashOf('src/b.py'))).toBe('src/b.py — updated by the agent');
    marks.apply({ type: 'updated', path: 'notes.txt', isDir: false, origin: 'external' });
    expect(rowTitle('notes.txt', undefined, marks.flashOf('notes.txt'))).toBe('notes.txt — updated by another program');
    vi.advanceTimersByTime(1000);
    expect(marks.flashOf('src/b.py')).toBeUndefined();
    expect(rowTitle('src/b.py', undefined, undefined)).toBe('src/b.py');
  });

  it('gives no badge to what the operator or another program created, nor to folders', () => {
    marks.apply({ type: 'created', path: 'mine.txt', isDir: false, origin: 'operator' });
    marks.apply({ type: 'created', path: 'theirs.txt', isDir: false, origin: 'external' });
    marks.apply({ type: 'created', path: 'out', isDir: true, origin: 'agent' });
    for (const path of ['mine.txt', 'theirs.txt', 'out']) expect(marks.newMarkOf(path)).toBeUndefined();
  });

  it('follows moves (a claimed step file renamed to its full name stays new) and forgets deletes', () => {
    marks.apply({ type: 'created', path: 'scripts/step_08.py', isDir: false, origin: 'agent' });
    marks.apply({
      type: 'moved',
      from: 'scripts/step_08.py',
      to: 'scripts/step_08_fit.py',
      isDir: false,
      origin: 'agent',
    });
    expect(marks.newMarkOf('scripts/step_08.py')).toBeUndefined();
    expect(marks.newMarkOf('scripts/step_08_fit.py')).toEqual({ origin: 'agent' });
    marks.apply({ type: 'moved', from: 'scripts', to: 'log', isDir: true, origin: 'operator' });
    expect(marks.newMarkOf('log/step_08_fit.py')).toEqual({ origin: 'agent' });
    marks.apply({ type: 'deleted', path: 'log', isDir: true, origin: 'operator' });
    expect(marks.newMarkOf('log/step_08_fit.py')).toBeUndefined();
  });
});

import { expect, it } from 'vitest';
import { changeTouches, isWithin, pathAfterMove, rekeyAfterMove } from './fs-change';

it('re-keys the entry itself, anything inside a moved folder, and nothing else', () => {
  expect(pathAfterMove('a.txt', 'a.txt', 'b.txt')).toBe('b.txt');
  expect(pathAfterMove('src/x/y.py', 'src', 'lib')).toBe('lib/x/y.py');
  expect(pathAfterMove('src/x/y.py', 'src/x', 'deep/er/x')).toBe('deep/er/x/y.py');
  // A sibling sharing a name prefix is not inside the folder.
  expect(pathAfterMove('src2/y.py', 'src', 'lib')).toBeNull();
  expect(pathAfterMove('other.txt', 'a.txt', 'b.txt')).toBeNull();
  // The root never moves.
  expect(pathAfterMove('a.txt', '', 'x')).toBeNull();
});

it('says which paths a change concerns', () => {
  const moved = { type: 'moved', from: 'src', to: 'lib', isDir: true, origin: 'operator' } as const;
  expect(changeTouches(moved, 'src/a.py')).toBe(true);
  expect(changeTouches(moved, 'lib/a.py')).toBe(true);
  expect(changeTouches(moved, 'srcs/a.py')).toBe(false);
  expect(changeTouches({ type: 'deleted', path: 'a', isDir: true, origin: 'external' }, 'a/b')).toBe(true);
  expect(isWithin('x', '')).toBe(true);
});

it('re-keys a path-keyed map in place, a moved entry landing on a key another one just left', () => {
  const map = new Map([
    ['a', 1],
    ['a/b', 2],
    ['ab', 3],
    ['c', 4],
  ]);
  expect(rekeyAfterMove(map, 'a', 'c/a')).toEqual([
    ['a', 'c/a', 1],
    ['a/b', 'c/a/b', 2],
  ]);
  expect([...map]).toEqual([
    ['ab', 3],
    ['c', 4],
    ['c/a', 1],
    ['c/a/b', 2],
  ]);
  // A key that a moved entry lands on and another moved entry leaves: both survive.
  const swap = new Map([
    ['x', 'old x'],
    ['x/y', 'old y'],
  ]);
  rekeyAfterMove(swap, 'x', 'x/y');
  expect([...swap]).toEqual([
    ['x/y', 'old x'],
    ['x/y/y', 'old y'],
  ]);
});

import { expect, it } from 'vitest';
import { TreeSelection } from './selection';

const ROWS = ['a', 'b', 'c', 'd', 'e'];
const between = (from: string, to: string) => {
  const [i, j] = [ROWS.indexOf(from), ROWS.indexOf(to)];
  return ROWS.slice(Math.min(i, j), Math.max(i, j) + 1);
};
const selected = (s: TreeSelection) => [...s.getState().selected].sort();

it('a click selects one row, Ctrl/Cmd+click toggles, Shift extends from the anchor', () => {
  const s = new TreeSelection();
  let renders = 0;
  s.subscribe(() => renders++);
  expect(s.targets()).toEqual([]);
  s.extendTo('c', between);
  expect(selected(s)).toEqual(['c']);
  s.select(['b']);
  s.extendTo('d', between);
  expect(selected(s)).toEqual(['b', 'c', 'd']);
  expect(s.focused).toBe('d');
  s.toggle('c');
  expect(selected(s)).toEqual(['b', 'd']);
  // The toggled row is the new anchor.
  s.extendTo('e', between);
  expect(selected(s)).toEqual(['c', 'd', 'e']);
  expect(renders).toBe(5);
});

it('a right-click keeps a selection holding its row; Escape keeps the focused row; targets fall back to focus', () => {
  const s = new TreeSelection();
  s.select(['a', 'b']);
  s.pointAt('a');
  expect(selected(s)).toEqual(['a', 'b']);
  expect(s.focused).toBe('a');
  s.pointAt('d');
  expect(selected(s)).toEqual(['d']);
  s.selectAll(ROWS);
  s.collapse();
  expect(s.targets()).toEqual(['d']);
  s.pointAt(null);
  expect(s.targets()).toEqual([]);
  expect(s.focused).toBeNull();
});

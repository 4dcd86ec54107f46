import { describe, expect, it } from 'vitest';
import { itemsToCollapse } from './toolbar-overflow';

const items = [
  { id: 'save', priority: 10, width: 30 },
  { id: 'runAll', priority: 8, width: 70 },
  { id: 'restart', priority: 4, width: 30 },
  { id: 'export', priority: 1, width: 60 },
];

describe('itemsToCollapse', () => {
  it('collapses nothing when everything fits', () => {
    expect(itemsToCollapse(items, 190, 28)).toEqual(new Set());
  });

  it('collapses the least important first, leaving room for the More actions button', () => {
    // 189 px: one pixel short, so the More button (28) needs room too: export (60) goes.
    expect(itemsToCollapse(items, 189, 28)).toEqual(new Set(['export']));
    expect(itemsToCollapse(items, 130, 28)).toEqual(new Set(['export', 'restart']));
    expect(itemsToCollapse(items, 60, 28)).toEqual(new Set(['export', 'restart', 'runAll']));
  });

  it('collapses everything when nothing fits beside the button', () => {
    expect(itemsToCollapse(items, 20, 28)).toEqual(new Set(['export', 'restart', 'runAll', 'save']));
  });
});

import type { CellConflictItem, MergeCellPart } from '../../../shared/notebook-diff';

const PART_NAMES: Record<MergeCellPart, string> = {
  source: 'source',
  outputs: 'outputs',
  metadata: 'metadata',
  cellType: 'cell type',
  other: 'fields',
};

/** What a conflict is, as its group's name says it: "Cell 3: source changed on both sides". */
export function describeConflict(conflict: CellConflictItem, position: number): string {
  if (conflict.reason === 'both-added') return `Cell ${position}: different cells added on both sides`;
  if (conflict.reason === 'delete-modified')
    return `Cell ${position}: deleted on ${conflict.ours.length ? 'their' : 'our'} side, edited on the other`;
  const parts = conflict.parts.map((part) => PART_NAMES[part]);
  const list = parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}` : parts[0];
  return `Cell ${position}: ${list} changed on both sides`;
}

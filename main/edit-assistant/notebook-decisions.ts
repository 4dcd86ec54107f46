import type { FileContent, OpenNotebookCellEdit, WriteResult } from '../../shared/contract';
import { isKilnError, KilnError } from '../../shared/errors';
import { applyNotebookChanges, diffNotebookTexts } from '../notebook';
import { hashText } from '../workspace/encoding';
import { countLineChanges } from './line-diff';
import { cellEditsBetween, cellShape } from './open-notebook-cells';
import { describeChanges, sourcesOf } from './notebook-proposal';
import type { StoredProposal } from './session-store';

/*
 * A notebook proposal decided cell by cell (ADR-0051 as for files): main writes the base with the accepted changes
 * applied (partial apply, byte-exact), only over exactly what it last wrote or the proposal was made against; a
 * decided change stays decided; the model is told per cell.
 */

export interface NotebookDecisionFiles {
  read(rel: string): Promise<FileContent>;
  write(rel: string, text: string, options: { origin: 'agent'; expectedHash?: string }): Promise<WriteResult>;
  /** The open notebook's bytes as a save would write them; null when it is clean, undefined when it is not open. */
  unsavedNotebook(rel: string): string | null | undefined;
}

export interface CellDecisionOutcome {
  /** What was written, when something was accepted. */
  written?: { text: string; result: WriteResult };
  /** One transcript marker per change decided now. */
  markers: { decision: 'accepted' | 'rejected'; text: string }[];
  /** Every decision of the proposal so far, in the model's terms (cell ids it was shown). */
  acceptedForModel: string[];
  rejectedForModel: string[];
  /** Accepted into the open notebook (nothing written): the edits the renderer makes there, in order. */
  cellEdits?: OpenNotebookCellEdit[];
  /** Every change of the proposal is decided. */
  complete: boolean;
}

function changedOnDisk(key: string, diskHash: string | null, boundHash: string): KilnError {
  return new KilnError(
    'E_CHANGED_ON_DISK',
    `${key} changed on disk since this proposal was made: Review against current notebook, or reject the proposal.`,
    { path: key, diskHash, baselineHash: boundHash },
  );
}

async function diskHashOf(files: NotebookDecisionFiles, key: string): Promise<string | null> {
  try {
    return (await files.read(key)).hash;
  } catch (err) {
    if (isKilnError(err, 'E_NOT_FOUND')) return null;
    throw err;
  }
}

/** Records (and for accepts, writes) the decisions; throws before recording anything when it cannot write. */
export async function decideNotebookCells(
  files: NotebookDecisionFiles,
  key: string,
  proposal: StoredProposal,
  choice: { accept: string[] | 'rest'; reject: string[] | 'rest' },
): Promise<CellDecisionOutcome> {
  const nb = proposal.notebook!;
  const { diff } = diffNotebookTexts(proposal.baselineText, proposal.content);
  const open = diff.changeIds.filter((id) => !(id in nb.decided));
  const accept = choice.accept === 'rest' ? open : choice.accept;
  const reject = choice.reject === 'rest' ? open.filter((id) => !accept.includes(id)) : choice.reject;
  const known = new Set(diff.changeIds);
  for (const id of [...accept, ...reject]) {
    if (!known.has(id)) throw new KilnError('E_BAD_REQUEST', `No change "${id}" in proposal ${proposal.id}`);
    if (id in nb.decided)
      throw new KilnError('E_BAD_REQUEST', `Change "${id}" was already ${nb.decided[id]}; a change is decided once`);
  }
  if (accept.some((id) => reject.includes(id)))
    throw new KilnError('E_BAD_REQUEST', 'A change cannot be both accepted and rejected');

  let written: CellDecisionOutcome['written'];
  let cellEdits: CellDecisionOutcome['cellEdits'];
  if (accept.length && nb.open) {
    cellEdits = await acceptIntoOpenNotebook(files, key, proposal, accept);
  } else if (accept.length) {
    const diskHash = await diskHashOf(files, key);
    if (diskHash !== nb.boundHash) throw changedOnDisk(key, diskHash, nb.boundHash);
    const accepted = [...Object.keys(nb.decided).filter((id) => nb.decided[id] === 'accepted'), ...accept];
    const text = applyNotebookChanges(proposal.baselineText, proposal.content, accepted);
    try {
      // The workspace checks the hash again right before its rename: another program's write is refused, not lost.
      written = { text, result: await files.write(key, text, { origin: 'agent', expectedHash: nb.boundHash }) };
    } catch (err) {
      if (isKilnError(err, 'E_CHANGED_ON_DISK')) throw changedOnDisk(key, err.details?.diskHash ?? null, nb.boundHash);
      throw err;
    }
    nb.boundHash = written.result.hash;
  }

  const described = describeChanges(diff, proposal.baselineText);
  const markers: CellDecisionOutcome['markers'] = [];
  for (const id of accept) {
    nb.decided[id] = 'accepted';
    markers.push({ decision: 'accepted', text: `Accepted ${described.get(id) ?? id}` });
  }
  for (const id of reject) {
    nb.decided[id] = 'rejected';
    markers.push({ decision: 'rejected', text: `Rejected ${described.get(id) ?? id}` });
  }
  const inModelTerms = (decision: 'accepted' | 'rejected') =>
    diff.changeIds.filter((id) => nb.decided[id] === decision).map((id) => described.get(id) ?? id);
  return {
    written,
    cellEdits,
    markers,
    acceptedForModel: inModelTerms('accepted'),
    rejectedForModel: inModelTerms('rejected'),
    complete: diff.changeIds.every((id) => id in nb.decided),
  };
}

function changedInOpenNotebook(key: string, nowHash: string | null, boundHash: string): KilnError {
  return new KilnError(
    'E_CHANGED_ON_DISK',
    nowHash === null
      ? `${key} was closed since this proposal was made against its unsaved edits: Review against current notebook, or reject the proposal.`
      : `${key} changed in the open notebook since this proposal was made: Review against current notebook, or reject the proposal.`,
    { path: key, diskHash: nowHash, baselineHash: boundHash },
  );
}

/**
 * The binding of a proposal made against the open notebook: its cells (id, type, source) must still be what the
 * proposal's base with the changes accepted so far gives; then the edits that add `accept` to them.
 */
async function acceptIntoOpenNotebook(
  files: NotebookDecisionFiles,
  key: string,
  proposal: StoredProposal,
  accept: string[],
): Promise<OpenNotebookCellEdit[]> {
  const nb = proposal.notebook!;
  const unsaved = files.unsavedNotebook(key);
  // Saved since (clean): the open notebook holds what is on disk.
  const now = unsaved === undefined ? undefined : (unsaved ?? (await files.read(key)).text);
  if (typeof now !== 'string') throw changedInOpenNotebook(key, null, nb.boundHash);
  const acceptedSoFar = Object.keys(nb.decided).filter((id) => nb.decided[id] === 'accepted');
  const expected = applyNotebookChanges(proposal.baselineText, proposal.content, acceptedSoFar);
  if (cellShape(now) !== cellShape(expected)) throw changedInOpenNotebook(key, hashText(now), nb.boundHash);
  const next = applyNotebookChanges(proposal.baselineText, proposal.content, [...acceptedSoFar, ...accept]);
  const edits = cellEditsBetween(expected, next);
  nb.boundHash = hashText(next);
  return edits;
}

/**
 * After a refused Accept: the proposal, without the changes already rejected, diffed against the notebook on disk
 * now. The earlier change ids belong to the old diff, so the review starts afresh (rejected changes stay out).
 */
export function rebaseNotebookProposal(
  proposal: StoredProposal,
  disk: { text: string; hash: string; open?: boolean },
): void {
  const nb = proposal.notebook!;
  const { diff } = diffNotebookTexts(proposal.baselineText, proposal.content);
  const kept = diff.changeIds.filter((id) => nb.decided[id] !== 'rejected');
  proposal.content = applyNotebookChanges(proposal.baselineText, proposal.content, kept);
  proposal.baselineText = disk.text;
  proposal.baselineHash = disk.hash;
  nb.decided = {};
  nb.boundHash = disk.hash;
  nb.open = disk.open || undefined;
  Object.assign(proposal, countLineChanges(sourcesOf(disk.text), sourcesOf(proposal.content)));
}

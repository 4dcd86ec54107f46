import { randomUUID } from 'node:crypto';
import { isKilnError } from '../../shared/errors';
import type { EngineOutcome } from '../models';
import { PROPOSE_FILE, PROPOSE_NOTEBOOK, ProposedCellsInput } from './harness';
import { countLineChanges } from './line-diff';
import { buildProposedNotebook, sourcesOf } from './notebook-proposal';
import type { StoredProposal } from './session-store';

/*
 * What a model's run proposed: its last usable `propose_file` (the new text) or `propose_notebook` (the cell list,
 * built into a notebook on the base here), or why its call could not be used, said so the model can do better.
 */

/** What a proposal is made against: the baseline, or (open) the open notebook's unsaved bytes. */
export interface ProposalBase {
  text: string;
  hash: string;
  open?: boolean;
}

export type RunProposal =
  | { kind: 'none' }
  | { kind: 'proposed'; proposal: StoredProposal }
  /** A completed run whose proposal call was invalid, unknown or could not be built: nothing is proposed. */
  | { kind: 'unusable'; reason: string };

export function proposalOfRun(outcome: EngineOutcome, notebook: boolean, base: ProposalBase): RunProposal {
  const tool = notebook ? PROPOSE_NOTEBOOK : PROPOSE_FILE;
  const usable = (input: unknown) => (notebook ? ProposedCellsInput.safeParse(input).success : isContentInput(input));
  const calls = outcome.toolCalls.filter((c) => c.toolName === tool);
  const lastValid = calls.filter((c) => !c.invalid && usable(c.input)).at(-1);
  let unbuildable: string | undefined;
  if (lastValid && outcome.status !== 'error') {
    if (!notebook) {
      const content = (lastValid.input as { content: string }).content;
      return { kind: 'proposed', proposal: newProposal(lastValid.toolCallId, content, base) };
    }
    const cells = ProposedCellsInput.parse(lastValid.input).cells;
    try {
      const content = buildProposedNotebook(base.text, cells);
      return { kind: 'proposed', proposal: newProposal(lastValid.toolCallId, content, base, cells) };
    } catch (err) {
      if (!isKilnError(err, 'E_BAD_REQUEST')) throw err;
      unbuildable = `The model's ${PROPOSE_NOTEBOOK} call could not be used: ${err.message}.`;
    }
  }
  if (outcome.status !== 'completed') return { kind: 'none' };
  const bad = outcome.toolCalls.find((c) => c.invalid || (c.toolName === tool && !usable(c.input)));
  if (unbuildable) return { kind: 'unusable', reason: unbuildable };
  if (bad) return { kind: 'unusable', reason: describeBadCall(bad.toolName, bad.invalid?.message ?? '', tool) };
  return { kind: 'none' };
}

/** A pending proposal over `base`; a notebook's +/- counts are of its cells' sources, not its JSON. */
function newProposal(
  toolCallId: string,
  content: string,
  base: ProposalBase,
  cells?: ProposedCellsInput['cells'],
): StoredProposal {
  const { text: baselineText, hash: baselineHash } = base;
  const open = base.open ? { open: true } : {};
  const counts = cells
    ? countLineChanges(sourcesOf(baselineText), sourcesOf(content))
    : countLineChanges(baselineText, content);
  return {
    id: randomUUID(),
    content,
    createdAt: Date.now(),
    status: 'pending',
    toolCallId,
    baselineText,
    baselineHash,
    ...counts,
    ...(cells ? { notebook: { cells, decided: {}, boundHash: baselineHash, ...open } } : {}),
  };
}

function isContentInput(input: unknown): input is { content: string } {
  return typeof input === 'object' && input !== null && typeof (input as { content?: unknown }).content === 'string';
}

function describeBadCall(toolName: string, message: string, tool: string): string {
  if (toolName !== tool) return `The model called an unknown tool '${toolName}'.`;
  if (/JSON parsing failed|JSON/i.test(message) && !/Type validation/i.test(message)) {
    return `The model's ${tool} call had malformed arguments (not valid JSON).`;
  }
  return tool === PROPOSE_NOTEBOOK
    ? `The model called ${PROPOSE_NOTEBOOK} without a valid "cells" list.`
    : `The model called ${PROPOSE_FILE} without a string "content" argument.`;
}

/**
 * The `edit` kind's intrinsic parts: its one tool, its harness prompt (mechanics only) and how a
 * session's history becomes model messages. Pure: no I/O.
 */
import { tool, type ModelMessage, type ToolSet } from 'ai';
import { z } from 'zod';
import type { EditSessionRecord } from './session-store';

export const PROPOSE_FILE = 'propose_file';
export const PROPOSE_NOTEBOOK = 'propose_notebook';

/**
 * The cells of a `propose_notebook` call. Cells, not a notebook body for propose_file: a model writing nbformat
 * JSON escapes sources badly, drops outputs and metadata it never saw, and burns its context on them; naming the
 * cell each one replaces lets Kiln keep everything the model did not change, byte for byte.
 */
export const ProposedCellsInput = z.object({
  cells: z
    .array(
      z.object({
        replaces: z
          .string()
          .nullable()
          .optional()
          .describe('The id of the current cell this cell replaces (keeps its outputs); null for a new cell.'),
        cell_type: z.enum(['code', 'markdown', 'raw']),
        source: z.string().describe('The complete source of the cell.'),
      }),
    )
    .describe('The ENTIRE new cell list, in order. A current cell left out is deleted.'),
});
export type ProposedCellsInput = z.infer<typeof ProposedCellsInput>;

/** No `execute`: a proposal ends the run and goes back to the session as data, for the operator to review. */
export function editTools(notebook = false): ToolSet {
  if (notebook)
    return {
      [PROPOSE_NOTEBOOK]: tool({
        description:
          'Propose the new cell list of the notebook being edited: every cell, in order, each with the id of the ' +
          'cell it replaces (null for a new cell); a cell left out is deleted. The operator reviews it cell by cell.',
        inputSchema: ProposedCellsInput,
      }),
    };
  return {
    [PROPOSE_FILE]: tool({
      description:
        'Propose new content for the file being edited. Pass the ENTIRE new file content, not a diff or an excerpt. ' +
        'The operator reviews it in a diff and accepts or rejects it.',
      inputSchema: z.object({
        content: z.string().describe('The complete new content of the file.'),
      }),
    }),
  };
}

export function harnessPrompt(path: string, baselineText: string): string {
  return [
    `You are an editing assistant working on exactly one file: \`${path}\`.`,
    '',
    'How this works:',
    `- Whenever you change the file, call the \`${PROPOSE_FILE}\` tool with the FULL new content of the file (every line, not a diff, not an excerpt).`,
    `- Never paste the file's content into your message; the operator sees your proposal as a diff.`,
    '- One proposal per reply. Keep any message short: say what you changed or answer the question.',
    '- The operator accepts or rejects each proposal. You are told which at the start of the next message.',
    '- If you are only asked a question, answer without proposing.',
    '',
    `Current content of \`${path}\` on disk (between the markers):`,
    '<<<FILE',
    baselineText,
    'FILE>>>',
  ].join('\n');
}

/** The harness prompt of a notebook: its cells (ids, types, sources, outputs summarized), never its JSON. */
export function notebookHarnessPrompt(path: string, cells: string): string {
  return [
    `You are an editing assistant working on exactly one Jupyter notebook: \`${path}\`.`,
    '',
    'How this works:',
    `- Whenever you change the notebook, call the \`${PROPOSE_NOTEBOOK}\` tool with the FULL new list of cells, in order.`,
    '- A cell you keep or change names the id of the cell it replaces in "replaces"; a new cell has "replaces": null; a cell you leave out is deleted.',
    '- Give each cell its complete source. Outputs are kept by Kiln for cells you replace; never write notebook JSON.',
    '- One proposal per reply. Keep any message short: say what you changed or answer the question.',
    '- The operator accepts or rejects each changed cell. You are told which at the start of the next message.',
    '- If you are only asked a question, answer without proposing.',
    '',
    `Current cells of \`${path}\` (between the markers; "--- cell <id> (<type>) [<execution count>]" starts a cell):`,
    '<<<NOTEBOOK',
    cells,
    'NOTEBOOK>>>',
  ].join('\n');
}

/** Notes the harness adds to the next user message; the operator sees them as transcript markers. */
export const notes = {
  accepted: (proposalId: string) =>
    `[Harness note: the operator ACCEPTED proposal ${proposalId}. It is now the content of the file on disk.]`,
  rejected: (proposalId: string) =>
    `[Harness note: the operator REJECTED proposal ${proposalId}. The file on disk is unchanged. Continue from your last proposal unless the operator says otherwise.]`,
  changedOnDisk: (path: string, text: string) =>
    `[Harness note: FILE CHANGED ON DISK. \`${path}\` was changed outside this session. Its current content, which replaces what you knew, is:]\n<<<FILE\n${text}\nFILE>>>`,
  notebookChangedOnDisk: (path: string, cells: string) =>
    `[Harness note: FILE CHANGED ON DISK. \`${path}\` was changed outside this session. Its current cells, which replace what you knew (ids included), are:]\n<<<NOTEBOOK\n${cells}\nNOTEBOOK>>>`,
  /** Per cell, what the operator decided on a notebook proposal; the prompt's cells are the notebook now. */
  cellDecisions: (proposalId: string, accepted: string[], rejected: string[]) =>
    `[Harness note: on proposal ${proposalId} the operator ${[
      accepted.length ? `ACCEPTED ${accepted.join('; ')}` : '',
      rejected.length ? `REJECTED ${rejected.join('; ')}` : '',
    ]
      .filter(Boolean)
      .join(' and ')}. Only accepted changes are in the notebook; the cells in the system prompt are its content now.]`,
  invalidProposal: (reason: string, notebook = false) =>
    notebook
      ? `[Harness note: your last ${PROPOSE_NOTEBOOK} call could not be used (${reason}). Nothing was proposed. Call ${PROPOSE_NOTEBOOK} again with {"cells": [...every cell...]} if you meant to change the notebook.]`
      : `[Harness note: your last ${PROPOSE_FILE} call could not be used (${reason}). Nothing was proposed. Call ${PROPOSE_FILE} again with {"content": "<the full file>"} if you meant to change the file.]`,
};

/** One exchange as the model sees it. */
export interface ModelTurn {
  notes: string[];
  userText: string;
  assistantText: string;
  proposal?: { toolCallId: string; proposalId: string; content: string; cells?: ProposedCellsInput['cells'] };
}

/** A session's recorded turns as the model sees them, each with the proposal it made. */
export function modelTurnsOf(record: Pick<EditSessionRecord, 'turns' | 'proposals'>): ModelTurn[] {
  return record.turns.map((turn) => {
    const proposal = turn.proposalId ? record.proposals.find((p) => p.id === turn.proposalId) : undefined;
    return {
      notes: turn.notes,
      userText: turn.userText,
      assistantText: turn.assistantText,
      proposal: proposal
        ? {
            toolCallId: proposal.toolCallId,
            proposalId: proposal.id,
            content: proposal.content,
            cells: proposal.notebook?.cells,
          }
        : undefined,
    };
  });
}

/** Rebuilds the conversation from recorded turns (user, assistant text + propose_file call, tool result). */
export function buildModelMessages(turns: ModelTurn[], current: { notes: string[]; userText: string }): ModelMessage[] {
  const messages: ModelMessage[] = [];
  for (const turn of turns) {
    messages.push({ role: 'user', content: userContent(turn.notes, turn.userText) });
    const parts: Array<
      { type: 'text'; text: string } | { type: 'tool-call'; toolCallId: string; toolName: string; input: unknown }
    > = [];
    if (turn.assistantText) parts.push({ type: 'text', text: turn.assistantText });
    if (turn.proposal) {
      parts.push({
        type: 'tool-call',
        toolCallId: turn.proposal.toolCallId,
        ...(turn.proposal.cells
          ? { toolName: PROPOSE_NOTEBOOK, input: { cells: turn.proposal.cells } }
          : { toolName: PROPOSE_FILE, input: { content: turn.proposal.content } }),
      });
    }
    // An empty assistant turn would break role alternation; say so instead.
    if (parts.length === 0) parts.push({ type: 'text', text: '(no reply)' });
    messages.push({ role: 'assistant', content: parts });
    if (turn.proposal) {
      messages.push({
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: turn.proposal.toolCallId,
            toolName: turn.proposal.cells ? PROPOSE_NOTEBOOK : PROPOSE_FILE,
            output: {
              type: 'text',
              value: `Recorded as proposal ${turn.proposal.proposalId}; the operator will review it.`,
            },
          },
        ],
      });
    }
  }
  messages.push({ role: 'user', content: userContent(current.notes, current.userText) });
  return messages;
}

function userContent(turnNotes: string[], text: string): string {
  return turnNotes.length ? `${turnNotes.join('\n\n')}\n\n${text}` : text;
}

import type { NotebookOutput } from './notebook';
import type { NotebookSaved, VerbCellRunResult, VerbRunResult } from './verb-results';

/** How a verb's call shows on its chip in the Agent panel once the verb returned. */
export interface VerbChip {
  /** One line: `exit 0`, `12 entries`, `cell 3 added · not saved`. */
  summary: string;
  /** The verb worked but what it ran did not (a non-zero exit, a time-out, a cell error). */
  failed?: boolean;
  /** Replaces the call's target when the result names a better one (execute-code's scripts/ step). */
  target?: string;
  /** Text shown under the chip; whoever shows it keeps only its head. */
  preview?: string;
}

/** A notebook change that did not reach disk says so on the chip itself, and why under it. */
export function notebookChangeChip(summary: string, result: NotebookSaved): VerbChip {
  if (result.saved) return { summary };
  return { summary: `${summary} · not saved`, preview: result.not_saved_reason ?? 'Not saved to disk.' };
}

/** Ends the chip summary of a run whose writes went to disk directly, so the turn's checkpoint can say so too. */
export const DIRECT_WRITES_NOTE = 'writes not undoable';

export function processRunChip(result: VerbRunResult): VerbChip {
  const parts: string[] = [];
  if (result.stdout.trim()) parts.push(result.stdout.trimEnd());
  if (result.stderr.trim()) parts.push(`[stderr]\n${result.stderr.trimEnd()}`);
  // The limit's line first: it is the one thing to read when a run was stopped.
  if (result.limit_message) parts.unshift(result.limit_message);
  const summary =
    result.timed_out || result.limit === 'time'
      ? 'timed out'
      : result.limit === 'memory'
        ? 'memory limit'
        : result.limit === 'processes'
          ? 'process limit'
          : `exit ${result.returncode}`;
  // A run whose writes undo cannot restore says so in the turn's transcript.
  const direct = result.files && !result.files.staged ? ` · ${DIRECT_WRITES_NOTE}` : '';
  // Entries changed outside during the run, which its writes did not replace: the operator should know where they went.
  parts.unshift(...(result.files?.kept ?? []).map((kept) => `${kept.path}: ${kept.why}`));
  // Writes under a protected path, not applied: first, since the code tried to change what Kiln runs or trusts.
  const refused = result.files?.refused ?? [];
  parts.unshift(...refused.map((entry) => `${entry.path}: not applied: ${entry.why}`));
  if (direct && result.files?.direct_reason)
    parts.unshift(`Undo this turn cannot restore what this run wrote: ${result.files.direct_reason}.`);
  return {
    summary: `${summary}${result.sandboxed ? '' : ' · unsandboxed'}${refused.length ? ` · ${refused.length} refused` : ''}${direct}`,
    failed: result.returncode !== 0 || result.timed_out || result.limit !== undefined,
    preview: parts.join('\n'),
  };
}

export function cellRunChip(result: VerbCellRunResult): VerbChip {
  // The kernel is the operator's own process: the chip says the cell ran outside any sandbox.
  const saved = notebookChangeChip(
    `${result.status}${result.exec_count !== null ? ` · [${result.exec_count}]` : ''}${result.sandboxed ? '' : ' · unsandboxed'}`,
    result,
  );
  return {
    summary: saved.summary,
    failed: result.had_error || result.status === 'error' || result.status === 'aborted',
    preview: [saved.preview, outputsText(result.outputs)].filter(Boolean).join('\n'),
  };
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function outputsText(outputs: NotebookOutput[]): string {
  const joined = (value: unknown) => (typeof value === 'string' ? value : Array.isArray(value) ? value.join('') : null);
  const texts: string[] = [];
  for (const output of outputs) {
    const text = joined(output.text);
    const data = output.data;
    if (text !== null) texts.push(text);
    else if (output.output_type === 'error')
      texts.push(`${String(output.ename ?? 'Error')}: ${String(output.evalue ?? '')}`);
    else if (isRecord(data)) texts.push(joined(data['text/plain']) ?? `(${Object.keys(data).join(', ')})`);
  }
  return texts.join('\n').trimEnd();
}

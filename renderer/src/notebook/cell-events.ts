import type { CellRunResult, CellState, NotebookOutput, OutputChange } from '../../../shared/contract';
import { joinMultiline } from '../../../shared/contract';
import { numbersOutside } from '../../../shared/python-json';
import type { CellView } from './notebook-session-state';

// How main's events about a running cell change its view: an output streamed in, the cell's run state.

/** Stream text of an output (list-of-lines on disk, one string once streaming). */
function withAppendedText(output: NotebookOutput, text: string): NotebookOutput {
  const current = joinMultiline((output as { text?: string | string[] }).text);
  return { ...output, text: current + text };
}

/** The cell with an output appended, streamed into, replaced or cleared (`notebook.output`). */
export function withOutputChange(c: CellView, change: OutputChange): Partial<CellView> {
  const outputs = [...c.cell.outputs];
  // The file's number texts describe the outputs it held; a replaced or cleared output drops its own.
  let exactNumbers = c.cell.exactNumbers;
  switch (change.kind) {
    case 'append':
      outputs.push(change.output);
      break;
    case 'appendText':
      if (outputs[change.index]) outputs[change.index] = withAppendedText(outputs[change.index], change.text);
      break;
    case 'replace':
      outputs[change.index] = change.output;
      exactNumbers = numbersOutside(exactNumbers, `/outputs/${change.index}`);
      break;
    case 'clear':
      outputs.length = 0;
      exactNumbers = numbersOutside(exactNumbers, '/outputs');
      break;
  }
  return { cell: { ...c.cell, outputs, exactNumbers } };
}

/** The cell queued, running or idle again, with its count and, at the end, its run's result (`notebook.cellState`). */
export function withCellState(
  c: CellView,
  state: CellState,
  executionCount: number | null,
  result?: CellRunResult,
  metadata?: Record<string, unknown>,
): Partial<CellView> {
  return {
    state,
    input: state === 'idle' ? null : c.input,
    note: result?.status === 'aborted' ? result.reason : undefined,
    cell: {
      ...c.cell,
      ...(metadata ? { metadata } : {}),
      execution_count: executionCount,
      // The final result carries the complete outputs: a safety net should an event have been missed.
      outputs:
        result && result.status !== 'skipped' && result.outputs.length >= c.cell.outputs.length
          ? result.outputs
          : c.cell.outputs,
    },
  };
}

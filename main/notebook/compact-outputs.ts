import type { NotebookOutput } from '../../shared/contract';
import { trimMiddle } from '../process';

// eslint-disable-next-line no-control-regex -- ANSI escapes start with ESC
const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g;

function textOf(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((line) => typeof line === 'string')) return value.join('');
  return null;
}

/**
 * Outputs as an agent should see them: text trimmed, ANSI colours stripped from tracebacks, and images or
 * other binary payloads replaced by a one-line summary (base64 only burns a model's context).
 */
export function compactOutputs(outputs: NotebookOutput[], maxChars: number): NotebookOutput[] {
  return outputs.map((output): NotebookOutput => {
    if (output.output_type === 'stream') {
      return { ...output, text: trimMiddle(textOf(output.text) ?? '', maxChars) };
    }
    if (output.output_type === 'error' && Array.isArray(output.traceback)) {
      const traceback = (output.traceback as unknown[]).map((line) => String(line).replace(ANSI, ''));
      return { ...output, traceback: trimMiddle(traceback.join('\n'), maxChars).split('\n') };
    }
    if (
      (output.output_type === 'display_data' || output.output_type === 'execute_result') &&
      output.data &&
      typeof output.data === 'object'
    ) {
      const data: Record<string, unknown> = {};
      for (const [mime, value] of Object.entries(output.data as Record<string, unknown>)) {
        const text = textOf(value);
        const textual = mime.startsWith('text/') || mime === 'application/json' || mime.endsWith('+json');
        if (textual && text !== null) data[mime] = trimMiddle(text, maxChars);
        else if (textual) data[mime] = trimMiddle(JSON.stringify(value), maxChars);
        else
          data[mime] =
            `<${mime} output, ${text?.length ?? JSON.stringify(value ?? null).length} characters; not shown>`;
      }
      return { ...output, data };
    }
    return output;
  });
}

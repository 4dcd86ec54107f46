/**
 * How a verb call shows in the workspace transcript: a compact chip (verb, target, one-line summary)
 * with short previews of the arguments and the result; never a whole file body. Pure.
 */
import type { ToolArgPreview } from '../../shared/contract';

const ARG_PREVIEW_CHARS = 240;
const RESULT_PREVIEW_CHARS = 600;

export interface ChipStart {
  target: string | null;
  args: ToolArgPreview[];
}

export interface ChipEnd {
  status: 'ok' | 'error';
  summary: string;
  /** Replaces the start's target when the result names it (execute-code's scripts/ step). */
  target?: string;
  resultPreview: string;
}

type Dict = Record<string, unknown>;
const isDict = (v: unknown): v is Dict => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

function previewText(text: string, limit: number): { value: string; omitted: number } {
  if (text.length <= limit) return { value: text, omitted: 0 };
  return { value: text.slice(0, limit), omitted: text.length - limit };
}

/** The chip as the call starts. */
export function describeCall(verb: string, input: unknown): ChipStart {
  const args = isDict(input) ? input : {};
  const target = str(args.path) ?? str(args.notebook) ?? null;
  const previews: ToolArgPreview[] = [];
  for (const [name, value] of Object.entries(args)) {
    const text = typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
    previews.push({ name, ...previewText(text, ARG_PREVIEW_CHARS) });
  }
  return { target, args: previews };
}

/** The chip once the verb returned. */
export function describeResult(verb: string, input: unknown, output: unknown): ChipEnd {
  const args = isDict(input) ? input : {};
  const out = isDict(output) ? output : {};
  switch (verb) {
    case 'list-files':
      return { status: 'ok', summary: `${Array.isArray(out.entries) ? out.entries.length : '?'} entries`, resultPreview: '' };
    case 'read-file': {
      const total = num(out.total_lines);
      return { status: 'ok', summary: `${total ?? '?'} lines${out.truncated === true ? ' (part)' : ''}`, resultPreview: '' };
    }
    case 'write-file': {
      const bytes = num(out.bytes_written);
      return { status: 'ok', summary: `${bytes ?? '?'} bytes${out.created === true ? ' · new' : ''}`, resultPreview: '' };
    }
    case 'edit-file': {
      const bytes = num(out.bytes_written);
      const n = num(out.replacements) ?? 0;
      const what = args.mode === 'overwrite' ? 'overwritten' : `${n} replacement${n === 1 ? '' : 's'}`;
      return { status: 'ok', summary: `${what} · ${bytes ?? '?'} bytes`, resultPreview: '' };
    }
    case 'run-file':
    case 'execute-code': {
      const code = num(out.returncode);
      const timedOut = out.timed_out === true;
      const summary = timedOut ? 'timed out' : `exit ${code ?? '?'}`;
      const script = str(out.script);
      return {
        status: code === 0 && !timedOut ? 'ok' : 'error',
        summary,
        ...(verb === 'execute-code' && script ? { target: script } : {}),
        resultPreview: runPreview(str(out.stdout) ?? '', str(out.stderr) ?? ''),
      };
    }
    case 'append-notebook-cell':
      return { status: 'ok', summary: `cell ${num(out.index) ?? '?'} added${notSaved(out)}`, resultPreview: notSavedReason(out) };
    case 'run-notebook-cell':
    case 'rerun-notebook-cell': {
      const status = str(out.status) ?? 'ok';
      const count = num(out.exec_count);
      const bad = out.had_error === true || status === 'error' || status === 'aborted';
      return {
        status: bad ? 'error' : 'ok',
        summary: `${status}${count !== undefined ? ` · [${count}]` : ''}${notSaved(out)}`,
        resultPreview: [notSavedReason(out), cellPreview(out.outputs)].filter(Boolean).join('\n'),
      };
    }
    case 'edit-notebook-cell':
      return { status: 'ok', summary: `cell ${str(out.cell_id) ?? '?'} edited${notSaved(out)}`, resultPreview: notSavedReason(out) };
    case 'delete-notebook-cell':
      return { status: 'ok', summary: `${num(out.remaining_cells) ?? '?'} cells left${notSaved(out)}`, resultPreview: notSavedReason(out) };
    default:
      return { status: 'ok', summary: 'done', resultPreview: previewText(JSON.stringify(output) ?? '', RESULT_PREVIEW_CHARS).value };
  }
}

/** The chip when the verb refused or failed. */
export function describeError(message: string): ChipEnd {
  const firstLine = message.split('\n')[0];
  return { status: 'error', summary: previewText(firstLine, 120).value, resultPreview: previewText(message, RESULT_PREVIEW_CHARS).value };
}

/** A notebook change that did not reach disk says so on the chip itself. */
function notSaved(out: Dict): string {
  return out.saved === false ? ' · not saved' : '';
}

function notSavedReason(out: Dict): string {
  return out.saved === false ? str(out.not_saved_reason) ?? 'Not saved to disk.' : '';
}

function runPreview(stdout: string, stderr: string): string {
  const parts: string[] = [];
  if (stdout.trim()) parts.push(stdout.trimEnd());
  if (stderr.trim()) parts.push(`[stderr]\n${stderr.trimEnd()}`);
  return resultPreview(parts.join('\n'));
}

function cellPreview(outputs: unknown): string {
  if (!Array.isArray(outputs)) return '';
  const texts: string[] = [];
  for (const output of outputs) {
    if (!isDict(output)) continue;
    if (typeof output.text === 'string') texts.push(output.text);
    else if (output.output_type === 'error') texts.push(`${str(output.ename) ?? 'Error'}: ${str(output.evalue) ?? ''}`);
    else if (isDict(output.data)) {
      const plain = output.data['text/plain'];
      if (typeof plain === 'string') texts.push(plain);
      else if (Array.isArray(plain)) texts.push(plain.join(''));
      else texts.push(`(${Object.keys(output.data).join(', ')})`);
    }
  }
  return resultPreview(texts.join('\n').trimEnd());
}

function resultPreview(text: string): string {
  const cut = previewText(text, RESULT_PREVIEW_CHARS);
  return cut.omitted ? `${cut.value}\n… (${cut.omitted} more characters)` : cut.value;
}

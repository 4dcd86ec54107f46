/**
 * How a verb call shows in the workspace transcript: a compact chip (verb, target, one-line summary)
 * with short previews of the arguments and the result; never a whole file body. What each verb's
 * result says is in its entry of the VERBS table; this only validates the result and keeps previews short. Pure.
 */
import type { ToolArgPreview } from '../../shared/contract';
import { isVerbName, VERBS, type VerbChip } from '../../shared/contract/verbs';
import { capText } from '../process';

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

/** The first `limit` characters, and how many more there were. */
function headOf(text: string, limit: number): { value: string; omitted: number } {
  const { head, omitted } = capText(text, { head: limit, tail: 0 });
  return { value: head, omitted };
}

/** The head of a result, with a line saying how much more there was. */
function resultPreview(text: string): string {
  const cut = headOf(text, RESULT_PREVIEW_CHARS);
  return cut.omitted ? `${cut.value}\n… (${cut.omitted} more characters)` : cut.value;
}

/** The chip as the call starts. */
export function describeCall(verb: string, input: unknown): ChipStart {
  const args = isDict(input) ? input : {};
  // A notebook verb's `notebook_name` may leave out ".ipynb" ("x" is x.ipynb); the chip names the file.
  const notebook = str(args.notebook_name) ?? str(args.notebook);
  const target = str(args.path) ?? (notebook && !/\.ipynb$/i.test(notebook) ? `${notebook}.ipynb` : notebook) ?? null;
  const previews: ToolArgPreview[] = [];
  for (const [name, value] of Object.entries(args)) {
    const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
    previews.push({ name, ...headOf(text, ARG_PREVIEW_CHARS) });
  }
  return { target, args: previews };
}

/** The chip once the verb returned: its table entry sums up the result, once the result is what its schema says. */
export function describeResult(verb: string, output: unknown): ChipEnd {
  const chip = verbChip(verb, output);
  if (!chip) return { status: 'ok', summary: 'done', resultPreview: resultPreview(JSON.stringify(output) ?? '') };
  return {
    status: chip.failed ? 'error' : 'ok',
    summary: chip.summary,
    ...(chip.target ? { target: chip.target } : {}),
    resultPreview: resultPreview(chip.preview ?? ''),
  };
}

function verbChip(verb: string, output: unknown): VerbChip | null {
  if (!isVerbName(verb)) return null;
  const entry = VERBS[verb];
  const parsed = entry.result.safeParse(output);
  // The entry's chip takes its own result type; the parse just proved `parsed.data` is one.
  return parsed.success ? (entry.chip as (result: unknown) => VerbChip)(parsed.data) : null;
}

/** The chip when the verb refused or failed. */
export function describeError(message: string): ChipEnd {
  const firstLine = message.split('\n')[0];
  return {
    status: 'error',
    summary: headOf(firstLine, 120).value,
    resultPreview: headOf(message, RESULT_PREVIEW_CHARS).value,
  };
}

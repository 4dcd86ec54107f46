import { z } from 'zod';

/*
 * The file kept beside a notebook's hot-exit backup with its Agent turns' unsaved changes: a first line naming the
 * format, a line of JSON with everything but the texts (their lengths instead), then the texts as they are, one after
 * another. Not JSON-encoded, as a backup's text is not: escaping a 20 MB notebook's quotes took main up to a second.
 */
/** One verb's change (or several verbs' with no other change between): the notebook before and after. */
export interface AgentStep {
  before: string;
  after: string;
  /** When it was noted (orders it among the turn's saved writes). */
  at: number;
}

/** One turn's changes to one open notebook, verb by verb. */
export interface UnsavedAgentEdit {
  /** Oldest first; never empty. */
  steps: AgentStep[];
  /** The file's hash the open notebook was based on when the turn changed it: a save since changes it. */
  diskHash: string | null;
  /** When the turn first changed it unsaved. */
  firstAt: number;
  /** When the turn last changed it (orders the turns of a notebook). */
  at: number;
}

const MAGIC = 'kiln-agent-edits 1';

const Meta = z.object({
  path: z.string().min(1),
  turns: z.array(
    z.object({
      turn: z.string().min(1),
      diskHash: z.string().nullable(),
      firstAt: z.number(),
      at: z.number(),
      // Each step's at and the lengths (UTF-16 code units) of its before and after.
      steps: z.array(z.tuple([z.number(), z.number().int().min(0), z.number().int().min(0)])).min(1),
    }),
  ),
});

export function formatAgentEdits(path: string, turns: ReadonlyArray<{ turn: string; edit: UnsavedAgentEdit }>): string {
  const texts: string[] = [];
  const meta = {
    path,
    turns: turns.map(({ turn, edit }) => ({
      turn,
      diskHash: edit.diskHash,
      firstAt: edit.firstAt,
      at: edit.at,
      steps: edit.steps.map((step) => {
        texts.push(step.before, step.after);
        return [step.at, step.before.length, step.after.length];
      }),
    })),
  };
  return `${MAGIC}\n${JSON.stringify(meta)}\n${texts.join('')}`;
}

/** The turns a kept file holds, or null if it is not one (cut short by a kill, or another format). */
export function parseAgentEdits(file: string): Array<{ turn: string; path: string; edit: UnsavedAgentEdit }> | null {
  if (!file.startsWith(`${MAGIC}\n`)) return null;
  const metaEnd = file.indexOf('\n', MAGIC.length + 1);
  if (metaEnd === -1) return null;
  let meta: z.infer<typeof Meta>;
  try {
    const parsed = Meta.safeParse(JSON.parse(file.slice(MAGIC.length + 1, metaEnd)));
    if (!parsed.success) return null;
    meta = parsed.data;
  } catch {
    return null;
  }
  let at = metaEnd + 1;
  const take = (length: number) => file.slice(at, (at += length));
  const out = meta.turns.map(({ turn, diskHash, firstAt, at: lastAt, steps }) => ({
    turn,
    path: meta.path,
    edit: {
      diskHash,
      firstAt,
      at: lastAt,
      steps: steps.map(([stepAt, before, after]) => ({ at: stepAt, before: take(before), after: take(after) })),
    },
  }));
  // Every text whole, and nothing after: a file cut short is no record (its turns are not guessed from a part).
  return at === file.length ? out : null;
}

import path from 'node:path';
import { KilnError } from '../../shared/errors';
import type { Workspace } from '../workspace';

const STEP_FILE = /^step_(\d+)(?=[_.]|$)/;
const MAX_SLUG = 40;

/** Turns text into a file-name slug: lowercase, [a-z0-9_], at most 40 characters, cut at a word boundary. */
export function slugify(text: string, fallback = 'code'): string {
  let slug = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  if (slug.length > MAX_SLUG) {
    const cut = slug.slice(0, MAX_SLUG + 1);
    const boundary = cut.lastIndexOf('_');
    slug = (boundary >= 12 ? cut.slice(0, boundary) : cut.slice(0, MAX_SLUG)).replace(/_+$/g, '');
  }
  return slug || fallback;
}

/**
 * The slug for a piece of code: its first meaningful line. Blank lines, comments, shebangs and imports say
 * little about what a step does, so the first other line wins; code made only of those uses its first one.
 */
export function slugForCode(code: string): string {
  // `a; b` on one line counts as two statements (a split inside a string literal only affects the name).
  const statements = code
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .flatMap((line) => line.split(';').map((part) => part.trim()))
    .filter(Boolean);
  const telling = statements.find((line) => !/^(import\s|from\s+\S+\s+import\s)/.test(line) && slugify(line, '') !== '');
  return slugify(telling ?? statements[0] ?? '', 'code');
}

/** The Python line a run-file step holds: it runs the file as __main__ from the workspace root. */
export function runFileStepSource(relPath: string): string {
  return `import runpy; runpy.run_path(${JSON.stringify(relPath)}, run_name="__main__")\n`;
}

/**
 * The audit log in `scripts/`: one numbered file per thing that ran (execute-code's code, or a line that runs
 * a file for run-file). Running every step in order from the workspace root, with src/ importable, replays it.
 */
export class AuditLog {
  private tail: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: { workspace: Workspace; dir: string }) {}

  get dir(): string {
    return this.options.dir;
  }

  /** True for paths that are audit-log entries (authoring verbs must not write those). */
  isStepPath(rel: string): boolean {
    const { dir } = this.options;
    return path.posix.dirname(rel) === dir && STEP_FILE.test(path.posix.basename(rel));
  }

  /** Writes the next step file and returns its workspace-relative path. Steps are numbered one at a time. */
  record(slug: string, source: string): Promise<string> {
    const next = this.tail.then(() => this.writeNext(slug, source));
    this.tail = next.catch(() => undefined);
    return next;
  }

  private async writeNext(slug: string, source: string): Promise<string> {
    const number = (await this.highestStep()) + 1;
    const rel = `${this.options.dir}/step_${String(number).padStart(2, '0')}_${slug}.py`;
    await this.options.workspace.write(rel, source, { origin: 'agent', createParents: true });
    return rel;
  }

  private async highestStep(): Promise<number> {
    const { workspace, dir } = this.options;
    let names: string[];
    try {
      names = (await workspace.list(dir, { showHidden: true })).map((entry) => entry.name);
    } catch (err) {
      if (err instanceof KilnError && err.code === 'E_NOT_FOUND') return 0;
      throw err;
    }
    let highest = 0;
    for (const name of names) {
      const match = STEP_FILE.exec(name);
      if (match) highest = Math.max(highest, Number(match[1]));
    }
    return highest;
  }
}

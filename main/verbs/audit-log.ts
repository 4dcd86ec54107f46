import path from 'node:path';
import { SerialQueue } from '../../shared/base/serial-queue';
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
 * `run_` starts run-file entries only, so `ls scripts/` tells reuse from one-shots: such a slug gets `code_` first.
 */
export function slugForCode(code: string): string {
  // `a; b` on one line counts as two statements (a split inside a string literal only affects the name).
  const statements = code
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .flatMap((line) => line.split(';').map((part) => part.trim()))
    .filter(Boolean);
  const telling = statements.find(
    (line) => !/^(import\s|from\s+\S+\s+import\s)/.test(line) && slugify(line, '') !== '',
  );
  const slug = slugify(telling ?? statements[0] ?? '', 'code');
  return slug === 'run' || slug.startsWith('run_') ? slugify(`code_${slug}`) : slug;
}

/** The slug of a run-file entry: `run_` and the file's name. */
export function slugForRunFile(rel: string): string {
  return `run_${slugify(path.posix.basename(rel).replace(/\.py$/i, ''), 'file')}`;
}

/** Python for the workspace root, from the step file's own place (so a replay finds src/ from any cwd). */
function rootExpression(scriptsDir: string): string {
  const up = scriptsDir
    .split('/')
    .map(() => '".."')
    .join(', ');
  return `os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ${up}))`;
}

const PREAMBLE_NOTE = '  # kiln: as when this step ran';

/** Step numbers have three digits at least, so `ls scripts/` sorts them in order past step 99. */
export const STEP_DIGITS = 3;

/** The step's first line: how it ran (sandboxed, which profile). A comment, so `from __future__` may follow it. */
function headerLine(header: string | undefined): string {
  return header ? `# kiln: ${header.replace(/\s+/g, ' ')}\n` : '';
}

/**
 * A one-shot's step: a preamble line that puts src/ on sys.path where PYTHONPATH would (after the script's
 * own folder), then the code. `from __future__` imports must come first, so the preamble goes after them.
 */
export function codeStepSource(code: string, scriptsDir: string, header?: string): string {
  const body = code.endsWith('\n') ? code : `${code}\n`;
  const preamble = `import os, sys; sys.path.insert(1, os.path.join(${rootExpression(scriptsDir)}, "src"))${PREAMBLE_NOTE}\n`;
  const lines = body.split('\n');
  let futures = 0;
  while (futures < lines.length && /^from\s+__future__\s+import\b/.test(lines[futures])) futures++;
  return headerLine(header) + [...lines.slice(0, futures), preamble.trimEnd(), ...lines.slice(futures)].join('\n');
}

/**
 * A run-file step, as the verbs design has it: one `runpy.run_path("src/x.py")` line, after one preamble line that
 * makes it what `python3 <file>` from the root with src/ importable does: the root as the working directory,
 * sys.path[0] the file's folder (so siblings import), src/ after it.
 */
export function runFileStepSource(rel: string, scriptsDir: string, header?: string): string {
  const folder = path.posix.dirname(rel);
  const paths = [folder === '.' ? 'root' : `os.path.join(root, ${JSON.stringify(folder)})`];
  if (folder !== 'src') paths.push('os.path.join(root, "src")');
  return (
    headerLine(header) +
    `import os, runpy, sys; root = ${rootExpression(scriptsDir)}; os.chdir(root); sys.path[0:1] = [${paths.join(', ')}]${PREAMBLE_NOTE}\n` +
    `runpy.run_path(${JSON.stringify(rel)}, run_name="__main__")\n`
  );
}

/**
 * The audit log in `scripts/`: one numbered, self-contained file per thing that ran. `python3 scripts/step_NNN_x.py`
 * from the workspace root replays it; running every step in order replays the session.
 *
 * Numbers are unique across every process writing the log (the app, MCP servers): a number is claimed by an
 * exclusive create of `step_NNN.py`, which is renamed to its full name only if no other NNN entry exists. A process
 * that listed before another's claim and created its own claim after that claim was renamed sees the renamed
 * entry and gives the number up, so exactly one claimant keeps each number and none is skipped.
 */
export class AuditLog {
  // One claim at a time in this process; other processes are handled by the exclusive create.
  private readonly claims = new SerialQueue();
  /** Made (or found) once per log; made again only when a write finds it gone. */
  private dirMade = false;

  constructor(private readonly options: { workspace: Workspace; dir: string }) {}

  get dir(): string {
    return this.options.dir;
  }

  /** True for paths that are audit-log entries (authoring verbs must not write those). */
  isStepPath(rel: string): boolean {
    const { dir } = this.options;
    return path.posix.dirname(rel) === dir && STEP_FILE.test(path.posix.basename(rel));
  }

  /** Logs a one-shot and returns its step's workspace-relative path. */
  recordCode(code: string, header?: string): Promise<string> {
    return this.record(slugForCode(code), codeStepSource(code, this.options.dir, header));
  }

  /** Logs a run of `rel` (a workspace file) and returns its step's workspace-relative path. */
  recordRunFile(rel: string, header?: string): Promise<string> {
    return this.record(slugForRunFile(rel), runFileStepSource(rel, this.options.dir, header));
  }

  private record(slug: string, source: string): Promise<string> {
    return this.claims.run(() => this.writeNext(slug, source));
  }

  private async writeNext(slug: string, source: string): Promise<string> {
    if (!this.dirMade) {
      await this.ensureDir();
      this.dirMade = true;
    }
    try {
      return await this.claimNext(slug, source);
    } catch (err) {
      // The folder was removed since: make it again and retry; any other missing thing is the caller's error.
      if (!(err instanceof KilnError && err.code === 'E_NOT_FOUND') || !(await this.ensureDir())) throw err;
      return this.claimNext(slug, source);
    }
  }

  private async claimNext(slug: string, source: string): Promise<string> {
    const { workspace, dir } = this.options;
    const origin = { origin: 'agent' } as const;
    for (;;) {
      const names = (await workspace.list(dir, { showHidden: true })).map((entry) => entry.name);
      const number = Math.max(0, ...names.map(stepNumberOf).filter((n) => n !== null)) + 1;
      const padded = String(number).padStart(STEP_DIGITS, '0');
      const claim = `${dir}/step_${padded}.py`;
      try {
        await workspace.createFile(claim, source, origin);
      } catch (err) {
        if (err instanceof KilnError && err.code === 'E_EXISTS') continue;
        throw err;
      }
      const now = (await workspace.list(dir, { showHidden: true })).map((entry) => entry.name);
      if (now.some((name) => `${dir}/${name}` !== claim && stepNumberOf(name) === number)) {
        await workspace.delete(claim, { permanent: true, ...origin });
        continue;
      }
      return (await workspace.move(claim, `${dir}/step_${padded}_${slug}.py`, origin)).path;
    }
  }

  /** Makes the log's folder and its parents; whether any was missing. */
  private async ensureDir(): Promise<boolean> {
    const segments = this.options.dir.split('/');
    let made = false;
    for (let i = 1; i <= segments.length; i++) {
      await this.options.workspace.createDir(segments.slice(0, i).join('/'), { origin: 'agent' }).then(
        () => (made = true),
        (err: unknown) => {
          if (!(err instanceof KilnError && err.code === 'E_EXISTS')) throw err;
        },
      );
    }
    return made;
  }
}

function stepNumberOf(name: string): number | null {
  const match = STEP_FILE.exec(name);
  return match ? Number(match[1]) : null;
}

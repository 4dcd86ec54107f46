import { spawn } from 'node:child_process';
import path from 'node:path';
import type { PackedSearchFile } from '../../shared/contract';
import { KilnError } from '../../shared/errors';
import type { EngineOutcome, EngineRun } from './engine';
import type { NotebookListing } from './kept-notebook-lists';
import { fileMatches, readText } from './node-search';
import { packSearchFile } from '../../shared/search-results';
import { pushMatch, toRegExp } from './query';

/** Files larger than this are not searched (logs and data dumps would swamp the results). */
const MAX_FILESIZE = '50M';
/**
 * ripgrep wraps each match in these (via --replace), so one line of plain output carries the line and
 * every match's place in it: no JSON to build in ripgrep and none to parse here.
 */
const OPEN = '\u0001';
const CLOSE = '\u0002';

/** The ripgrep arguments for a query: the same ones the bench runs `rg` with directly. */
export function ripgrepArgs(run: Pick<EngineRun, 'query'>): string[] {
  const { query } = run;
  const args = ['--no-config', '--hidden', '--engine', 'auto', '--max-filesize', MAX_FILESIZE];
  args.push(
    '--no-heading',
    '--with-filename',
    '--line-number',
    '--null',
    '--color',
    'never',
    '--replace',
    `${OPEN}$0${CLOSE}`,
  );
  args.push(query.matchCase ? '--case-sensitive' : '--ignore-case');
  if (!query.isRegex) args.push('--fixed-strings');
  if (query.wholeWord) args.push('--word-regexp');
  // Later globs win in ripgrep: includes first, then the excludes that override them.
  for (const glob of query.include) args.push('--glob', glob);
  for (const glob of query.exclude) args.push('--glob', `!${glob}`);
  // Notebooks are searched in their cells' sources (see below), not as escaped JSON.
  args.push('--glob', `!${NOTEBOOKS}`);
  args.push('--regexp', query.pattern, '--', '.');
  return args;
}

const NOTEBOOKS = '*.ipynb';

/** The ripgrep arguments that list the notebooks a query covers (its globs, .gitignore, hidden files). */
export function ripgrepNotebookArgs(run: Pick<EngineRun, 'query'>): string[] {
  const args = ['--no-config', '--hidden', '--max-filesize', MAX_FILESIZE, '--files', '--null'];
  args.push('--type-add', `notebook:${NOTEBOOKS}`, '--type', 'notebook');
  for (const glob of run.query.include) args.push('--glob', glob);
  for (const glob of run.query.exclude) args.push('--glob', `!${glob}`);
  args.push('--', '.');
  return args;
}

/**
 * Searches with ripgrep, streaming each file's matches once ripgrep moves on to the next file; then the
 * notebooks ripgrep lists, whose cell sources are read and searched here.
 */
export async function searchWithRipgrep(rgPath: string, run: EngineRun): Promise<EngineOutcome> {
  let reported = 0;
  const onFile = run.onFile;
  const searched = searchTextWithRipgrep(rgPath, {
    ...run,
    onFile: (file) => {
      reported += file.previews.length;
      onFile(file);
    },
  });
  // The notebooks are listed while the text is searched (a second walk of the tree, off the critical path),
  // spawned second because a spawn blocks this thread for a fork of the whole process.
  const listing = new AbortController();
  const walk = () => listNotebooks(rgPath, run, AbortSignal.any([run.signal, listing.signal]));
  const notebooks = run.keptNotebooks ? run.keptNotebooks.get(run.query, walk) : walk().then((l) => l.paths);
  const outcome = await searched.catch((err: unknown) => {
    listing.abort();
    throw err;
  });
  if (outcome.limitHit || run.signal.aborted) {
    listing.abort();
    return outcome;
  }
  const regex = toRegExp(run.query);
  for (const rel of await notebooks) {
    if (run.signal.aborted) break;
    const text = await readText(path.join(run.root, rel));
    if (text === null) continue;
    const matches = fileMatches(rel, text, regex, run.maxMatches - reported);
    reported += matches.length;
    if (matches.length) onFile(packSearchFile({ path: rel, matches }));
    if (reported >= run.maxMatches) return { limitHit: true };
  }
  return outcome;
}

function listNotebooks(rgPath: string, run: EngineRun, signal: AbortSignal): Promise<NotebookListing> {
  return new Promise((resolve) => {
    const child = spawn(rgPath, ripgrepNotebookArgs(run), { cwd: run.root, stdio: ['ignore', 'pipe', 'ignore'] });
    const stop = () => child.kill();
    if (signal.aborted) stop();
    signal.addEventListener('abort', stop, { once: true });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.once('error', () => resolve({ paths: [], complete: false }));
    child.once('close', (code) => {
      signal.removeEventListener('abort', stop);
      const paths = out
        .split('\0')
        .filter(Boolean)
        .map((p) => p.replace(/^\.\//, ''))
        .sort();
      // 1: no notebook at all; a kill (cancelled) or an error (2) may have cut the list short.
      resolve({ paths, complete: (code === 0 || code === 1) && !signal.aborted });
    });
  });
}

function searchTextWithRipgrep(rgPath: string, run: EngineRun): Promise<EngineOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(rgPath, ripgrepArgs(run), { cwd: run.root, stdio: ['ignore', 'pipe', 'pipe'] });
    let reported = 0;
    let limitHit = false;
    let stderr = '';
    let current: PackedSearchFile | null = null;
    /** current's path as ripgrep printed it. */
    let currentRaw = '';
    let filesReported = 0;
    /** Holding (a test seam): ripgrep's output is no longer read, so it blocks on a full pipe until cancelled. */
    let held = false;
    const stop = () => {
      child.kill();
      // Read what is left (ignored, the search is cancelled) so the pipe ends and 'close' comes.
      child.stdout.resume();
    };
    run.signal.addEventListener('abort', stop, { once: true });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      if (stderr.length < 4000) stderr += chunk;
    });
    const flush = () => {
      if (held) return;
      if (current?.previews.length) {
        run.onFile(current);
        if (++filesReported === run.holdAfterFiles && !run.signal.aborted) {
          held = true;
          child.stdout.pause();
        }
      }
      current = null;
    };
    // One output line: path NUL line-number ':' the line with each match between OPEN and CLOSE.
    const onLine = (raw: string) => {
      if (limitHit || held || run.signal.aborted) return;
      const nul = raw.indexOf('\0');
      const colon = raw.indexOf(':', nul + 1);
      if (nul < 0 || colon < 0) return;
      // Consecutive lines of one file repeat its path: compare it in place before cutting a new one.
      if (!current || nul !== currentRaw.length || !raw.startsWith(currentRaw)) {
        flush();
        currentRaw = raw.slice(0, nul);
        current = { path: currentRaw.replace(/^\.\//, ''), numbers: [], previews: [] };
      }
      const lineNumber = Number(raw.slice(nul + 1, colon));
      let marked = raw.slice(colon + 1);
      if (marked.endsWith('\r')) marked = marked.slice(0, -1);
      const { line, spans } = unmark(marked);
      for (let i = 0; i < spans.length; i += 2) {
        if (spans[i] === spans[i + 1]) continue;
        pushMatch(current, lineNumber, line, spans[i], spans[i + 1]);
        if (++reported >= run.maxMatches) {
          limitHit = true;
          flush();
          child.kill();
          return;
        }
      }
    };
    let tail = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      const lines = (tail + chunk).split('\n');
      tail = lines.pop() ?? '';
      for (const line of lines) onLine(line);
    });
    child.once('error', (err) => reject(new KilnError('E_INTERNAL', `ripgrep could not start: ${err.message}`)));
    child.once('close', (code) => {
      run.signal.removeEventListener('abort', stop);
      // Held, the search ends only when cancelled, even if ripgrep's output all arrived before the hold.
      if (held && !run.signal.aborted) {
        run.signal.addEventListener('abort', () => resolve({ limitHit }), { once: true });
        return;
      }
      if (tail) onLine(tail);
      flush();
      // 0: matches, 1: none; 2 with a pattern error is the operator's to fix, other errors (unreadable files) are not fatal.
      if (code === 2 && /regex|pattern/i.test(stderr) && !reported) {
        reject(new KilnError('E_BAD_REQUEST', stderr.trim().split('\n').slice(0, 6).join('\n')));
      } else resolve({ limitHit });
    });
  });
}

/** Takes the markers out of a line, keeping where each match started and ended (UTF-16 offsets, in pairs). */
function unmark(marked: string): { line: string; spans: number[] } {
  const spans: number[] = [];
  let line = '';
  let from = 0;
  for (let open = marked.indexOf(OPEN); open >= 0; open = marked.indexOf(OPEN, from)) {
    const close = marked.indexOf(CLOSE, open + 1);
    if (close < 0) break;
    line += marked.slice(from, open);
    const start = line.length;
    line += marked.slice(open + 1, close);
    spans.push(start, line.length);
    from = close + 1;
  }
  line += marked.slice(from);
  return { line, spans };
}

import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { SearchMatch } from '../../shared/contract';
import { KilnError } from '../../shared/errors';
import type { EngineOutcome, EngineRun } from './engine';
import { matchOf } from './query';

/** Files larger than this are not searched (logs and data dumps would swamp the results). */
const MAX_FILESIZE = '50M';

type RgText = { text: string } | { bytes: string };
type RgMessage =
  | { type: 'begin'; data: { path: RgText } }
  | { type: 'match'; data: { path: RgText; lines: RgText; line_number: number; submatches: { start: number; end: number }[] } }
  | { type: 'end' | 'summary' | 'context'; data: unknown };

/** The ripgrep arguments for a query: the same ones the bench runs `rg` with directly. */
export function ripgrepArgs(run: Pick<EngineRun, 'query'>): string[] {
  const { query } = run;
  const args = ['--json', '--no-config', '--hidden', '--engine', 'auto', '--max-filesize', MAX_FILESIZE];
  args.push(query.matchCase ? '--case-sensitive' : '--ignore-case');
  if (!query.isRegex) args.push('--fixed-strings');
  if (query.wholeWord) args.push('--word-regexp');
  // Later globs win in ripgrep: includes first, then the excludes that override them.
  for (const glob of query.include) args.push('--glob', glob);
  for (const glob of query.exclude) args.push('--glob', `!${glob}`);
  args.push('--regexp', query.pattern, '--', '.');
  return args;
}

/** Searches with ripgrep, streaming each file's matches as ripgrep finishes it. */
export function searchWithRipgrep(rgPath: string, run: EngineRun): Promise<EngineOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(rgPath, ripgrepArgs(run), { cwd: run.root, stdio: ['ignore', 'pipe', 'pipe'] });
    let reported = 0;
    let limitHit = false;
    let stderr = '';
    let current: { path: string; matches: SearchMatch[] } | null = null;
    const stop = () => child.kill();
    run.signal.addEventListener('abort', stop, { once: true });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      if (stderr.length < 4000) stderr += chunk;
    });
    const flush = () => {
      if (current?.matches.length) run.onFile(current);
      current = null;
    };
    const lines = createInterface({ input: child.stdout, crlfDelay: Infinity });
    lines.on('line', (line) => {
      if (limitHit || run.signal.aborted) return;
      const message = JSON.parse(line) as RgMessage;
      if (message.type === 'begin') {
        const path = textOf(message.data.path);
        current = path === null ? null : { path: path.replace(/^\.\//, ''), matches: [] };
      } else if (message.type === 'match' && current) {
        const text = textOf(message.data.lines);
        if (text === null) return;
        const lineText = text.replace(/\r?\n$/, '');
        const ascii = Buffer.byteLength(lineText) === lineText.length;
        for (const sub of message.data.submatches) {
          const start = ascii ? sub.start : utf16Offset(lineText, sub.start);
          const end = ascii ? sub.end : utf16Offset(lineText, sub.end);
          current.matches.push(matchOf(message.data.line_number, lineText, start, end));
          if (++reported >= run.maxMatches) {
            limitHit = true;
            flush();
            child.kill();
            return;
          }
        }
      } else if (message.type === 'end') flush();
    });
    child.once('error', (err) => reject(new KilnError('E_INTERNAL', `ripgrep could not start: ${err.message}`)));
    child.once('close', (code) => {
      run.signal.removeEventListener('abort', stop);
      flush();
      // 0: matches, 1: none; 2 with a pattern error is the operator's to fix, other errors (unreadable files) are not fatal.
      if (code === 2 && /regex|pattern/i.test(stderr) && !reported) {
        reject(new KilnError('E_BAD_REQUEST', stderr.trim().split('\n').slice(0, 6).join('\n')));
      } else resolve({ limitHit });
    });
  });
}

function textOf(value: RgText): string | null {
  return 'text' in value ? value.text : null;
}

/** ripgrep counts bytes; the editor counts UTF-16 units. */
function utf16Offset(line: string, byteOffset: number): number {
  return Buffer.from(line).subarray(0, byteOffset).toString('utf8').length;
}

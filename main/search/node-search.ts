import type { Dirent } from 'node:fs';
import { open, readdir } from 'node:fs/promises';
import path from 'node:path';
import type { SearchMatch } from '../../shared/contract';
import { packSearchFile } from '../../shared/search-results';
import type { EngineOutcome, EngineRun } from './engine';
import { notebookMatches } from './notebook-search';
import { globFilter, textMatches, toRegExp } from './query';

const MAX_FILE_BYTES = 50 * 1024 * 1024;
const BINARY_SNIFF_BYTES = 8000;

/**
 * The engine when ripgrep is not installed: walks the workspace and searches file by file, yielding
 * between files so the host keeps serving. Slower, same results for the common cases; .gitignore is not read.
 */
export async function searchWithNode(run: EngineRun): Promise<EngineOutcome> {
  const filter = globFilter(run.query.include, run.query.exclude);
  const regex = toRegExp(run.query);
  let reported = 0;
  let filesReported = 0;
  const queue = [''];
  while (queue.length) {
    if (run.signal.aborted) return { limitHit: false };
    const dir = queue.shift()!;
    let entries: Dirent[];
    try {
      entries = await readdir(path.join(run.root, dir), { withFileTypes: true });
    } catch {
      continue;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const entry of entries) {
      const rel = dir ? `${dir}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (filter.dir(rel)) queue.push(rel);
        continue;
      }
      if (!entry.isFile() || !filter.file(rel)) continue;
      if (filesReported === run.holdAfterFiles) await untilAborted(run.signal);
      if (run.signal.aborted) return { limitHit: false };
      const text = await readText(path.join(run.root, rel));
      if (text === null) continue;
      const matches = fileMatches(rel, text, regex, run.maxMatches - reported);
      reported += matches.length;
      if (matches.length) {
        run.onFile(packSearchFile({ path: rel, matches }));
        filesReported++;
      }
      if (reported >= run.maxMatches) return { limitHit: true };
    }
  }
  return { limitHit: false };
}

/** A file's matches, at most `budget`: a notebook's in its cells' sources, any other file's in its lines. */
export function fileMatches(rel: string, text: string, regex: RegExp, budget: number): SearchMatch[] {
  return (rel.endsWith('.ipynb') ? notebookMatches(text, regex, budget) : null) ?? textMatches(text, regex, budget);
}

function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

/** A text file's content, or null for binary, unreadable or oversized files; one open per file. */
export async function readText(abs: string): Promise<string | null> {
  try {
    const handle = await open(abs, 'r');
    try {
      const info = await handle.stat();
      if (!info.isFile() || info.size > MAX_FILE_BYTES) return null;
      const bytes = await handle.readFile();
      if (bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0)) return null;
      return bytes.toString('utf8');
    } finally {
      await handle.close();
    }
  } catch {
    return null;
  }
}

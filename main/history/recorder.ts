import path from 'node:path';
import type { HistoryOrigin } from '../../shared/contract';
import { DEFAULT_WATCH_EXCLUDES, ExcludeMatcher } from '../watcher/excludes';
import type { ReplacedFile } from '../workspace';
import { currentWriteCause } from './cause';
import type { HistoryStore } from './store';

/** Never kept in history, whatever `watch.exclude` says: version control's own files and installed packages. */
const ALWAYS_EXCLUDED = ['.git', 'node_modules'];

/** Whether `rel` or a folder above it is excluded from history (`watch.exclude` plus `.git` and `node_modules`). */
export function historyExcludes(watchExclude: readonly string[]): (rel: string) => boolean {
  const matcher = new ExcludeMatcher([...watchExclude, ...ALWAYS_EXCLUDED]);
  return (rel) => {
    const segments = rel.split('/');
    for (let i = 1; i <= segments.length; i++) {
      if (matcher.excludes(segments.slice(0, i).join('/'), segments[i - 1])) return true;
    }
    return false;
  };
}

/** `historyExcludes` of the current `watch.exclude` (null: the watcher's defaults), rebuilt only when it changes. */
export function followingExcludes(current: () => readonly string[] | null): (rel: string) => boolean {
  let built: { patterns: readonly string[] | null; test: (rel: string) => boolean } | null = null;
  return (rel) => {
    const patterns = current();
    if (!built || built.patterns !== patterns) {
      built = { patterns, test: historyExcludes(patterns ?? DEFAULT_WATCH_EXCLUDES) };
    }
    return built.test(rel);
  };
}

export interface HistoryRecorderOptions {
  store: HistoryStore;
  /** Read at each write, so a config change applies at once. */
  excluded: (rel: string) => boolean;
}

/**
 * The workspace's `beforeReplace` hook: keeps what Kiln is about to overwrite or delete, attributed to the
 * writer (the operator, the Agent and its turn, an MCP client and its batch) from the write's async context.
 */
export function historyRecorder(options: HistoryRecorderOptions): (replaced: ReplacedFile) => Promise<void> {
  return async (replaced) => {
    if (!keeps(options, replaced)) return;
    const cause = currentWriteCause();
    const inTurn = Boolean(cause.turn || cause.batch);
    // A file or folder coming into being is history only for a turn or batch (its undo removes it).
    if (replaced.reason === 'create' && !inTurn) return;
    // Folders are history only for a turn or batch too (its undo makes a deleted one again).
    if (replaced.kind === 'dir' && !inTurn) return;
    // Too large to keep: outside a turn nothing is recorded; in one, the turn's list says undo cannot restore it.
    const tooLarge = replaced.size > options.store.limits.maxFileBytes;
    if (tooLarge && !inTurn) return;
    const origin: HistoryOrigin = cause.mcpClient ? 'mcp' : replaced.origin;
    await options.store.record({
      path: replaced.path,
      bytes: tooLarge ? Buffer.alloc(0) : await replaced.read(),
      contentNotKept: tooLarge || undefined,
      kind: replaced.kind,
      mode: replaced.mode,
      origin,
      reason: cause.restoring && replaced.reason === 'write' ? 'restore' : replaced.reason,
      nextHash: replaced.nextHash,
      agentSession: cause.agentSession,
      turn: cause.turn,
      mcpClient: cause.mcpClient,
      batch: cause.batch,
    });
  };
}

/** Whether history keeps anything of `replaced` at all (not excluded, not one of Kiln's own temp files). */
function keeps(options: HistoryRecorderOptions, replaced: Pick<ReplacedFile, 'path'>): boolean {
  return !options.excluded(replaced.path) && !path.posix.basename(replaced.path).startsWith('.kiln-');
}

/**
 * The workspace's `keepCreated` hook: the files a batch created (a run's new files), recorded as one batch under
 * the write cause of the batch, as `historyRecorder` would record each (a creation is history only for a turn or
 * batch: its undo removes the file).
 */
export function historyCreationRecorder(options: HistoryRecorderOptions): (created: ReplacedFile[]) => Promise<void> {
  return async (created) => {
    const cause = currentWriteCause();
    if (!cause.turn && !cause.batch) return;
    const origin: HistoryOrigin | null = cause.mcpClient ? 'mcp' : null;
    await options.store.recordCreations(
      created
        .filter((file) => keeps(options, file))
        .map((file) => ({
          path: file.path,
          bytes: Buffer.alloc(0),
          kind: file.kind,
          mode: file.mode,
          origin: origin ?? file.origin,
          reason: 'create' as const,
          nextHash: file.nextHash,
          agentSession: cause.agentSession,
          turn: cause.turn,
          mcpClient: cause.mcpClient,
          batch: cause.batch,
        })),
    );
  };
}

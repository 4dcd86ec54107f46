import * as fs from 'node:fs/promises';
import path from 'node:path';
import type { RunChanges } from '../../shared/contract/verbs';
import { withWriteCause, type WriteCause } from '../history';
import { overlayChanges, ownerAlive, processStartTime, readRunRecord, removeRunDir, type RunRecord } from '../sandbox';
import type { Workspace } from '../workspace';
import { applyRunChanges } from './run-changes';
import { createLogger } from '../log';

const log = createLogger('verbs.recovery');

/** A run cut short by its Kiln's death, applied by this one. */
export interface RecoveredRun {
  /** The Agent turn or MCP batch the run belonged to ("" when it had none): undoing it takes these writes back. */
  turn: string;
  files: RunChanges;
}

/** A run folder being applied by a process names it in its folder name, so no two Kilns apply one run. */
const CLAIM = '.claimed-';

/**
 * Applies the writes of runs whose Kiln died before it applied them (kill -9, OOM, power loss): each such run's
 * upper layer is still in the staging folder, with its record. Only runs over this workspace whose owner (and
 * claimer, if any) is gone are taken; each is applied as its run would have been at its end, under its own turn,
 * with the same rule (an entry changed outside since the run started is not overwritten: the run's version goes
 * beside it). A run that cannot be applied whole stays, kept, for a week.
 */
export async function recoverInterruptedRuns(options: {
  staging: string;
  workspace: Workspace;
  python: () => Promise<string>;
  /** Paths agent code may not write (ProtectedPaths.writeRefusal): a dead Kiln's run is held to the same list. */
  refuse?(rel: string): string | null;
}): Promise<RecoveredRun[]> {
  const { staging, workspace } = options;
  const recovered: RecoveredRun[] = [];
  const myStart = await processStartTime(process.pid);
  for (const name of await fs
    .readdir(staging)
    .catch(log.caught('no staging folder yet: no interrupted runs to recover', [] as string[]))) {
    if (!name.startsWith('run-')) continue;
    const dir = path.join(staging, name);
    const record = await readRunRecord(dir);
    if (!record || record.workspaceRoot !== workspace.root) continue;
    if (
      await fs.access(path.join(dir, 'kept')).then(
        () => true,
        () => false,
      )
    )
      continue;
    if (await ownerAlive(record.pid, record.pidStartedAt)) continue;
    const claimer = /\.claimed-(\d+)-(\w+)$/.exec(name);
    if (claimer && (await ownerAlive(Number(claimer[1]), claimer[2] === 'none' ? null : claimer[2]))) continue;
    // The rename is the claim: of two Kilns starting at once, one renames the folder and the other finds it gone.
    const base = claimer ? name.slice(0, claimer.index) : name;
    const claimed = path.join(staging, `${base}${CLAIM}${process.pid}-${myStart ?? 'none'}`);
    if (
      claimed !== dir &&
      !(await fs.rename(dir, claimed).then(
        () => true,
        () => false,
      ))
    )
      continue;
    const files = await applyRun(claimed, record, workspace, options.python, options.refuse);
    if (files) recovered.push({ turn: String(record.cause.turn ?? record.cause.batch ?? ''), files });
  }
  return recovered;
}

async function applyRun(
  dir: string,
  record: RunRecord,
  workspace: Workspace,
  python: () => Promise<string>,
  refuse?: (rel: string) => string | null,
): Promise<RunChanges | null> {
  const upper = path.join(dir, 'upper');
  let kept = false;
  const keep = async () => {
    kept = true;
    await fs.writeFile(path.join(dir, 'kept'), '');
  };
  try {
    const changes = await overlayChanges(upper, workspace.root, await python());
    const cause: WriteCause = {
      agentSession: stringOr(record.cause.agentSession),
      turn: stringOr(record.cause.turn),
      mcpClient: stringOr(record.cause.mcpClient),
      batch: stringOr(record.cause.batch),
    };
    const files = await withWriteCause(cause, () =>
      applyRunChanges({ workspace, upper, changes, startedAt: record.startedAt, keep, refuse }),
    );
    return files;
  } catch (err) {
    // Its writes stay in the staging folder, marked kept, rather than half applied.
    log.warn('an interrupted run could not be applied; its staged writes are kept', { run: path.basename(dir), err });
    await keep();
    return null;
  } finally {
    if (!kept)
      await removeRunDir(dir).catch(
        log.caught(
          "a recovered run's staging folder could not be removed; it stays in the data folder",
          undefined,
          'warn',
        ),
      );
  }
}

function stringOr(value: unknown): string | undefined {
  return typeof value === 'string' && value ? value : undefined;
}

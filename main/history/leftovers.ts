import * as fs from 'node:fs/promises';
import path from 'node:path';
import { createLogger } from '../log';

const log = createLogger('history.leftovers');

/** A staging folder or temp file whose process still runs is swept anyway once this old (its pid was reused). */
const LEFTOVER_MS = 24 * 3600_000;

/**
 * Removes what a history batch left half made when its process died: a staging folder beside the history folder
 * (`<history>.staging-<pid>-<hex>`, where batches were built before packs) and a pack's temp file
 * (`packs/<name>.<pid>-<hex>.tmp`). Neither was ever in place, so nothing of history goes with them. Another live
 * process's (an MCP server on the same workspace) are left alone. Each removal is logged.
 */
export async function sweepBatchLeftovers(historyDir: string, packsDir: string, now = Date.now()): Promise<void> {
  const parent = path.dirname(historyDir);
  const stagingPrefix = `${path.basename(historyDir)}.staging-`;
  const leftovers = [
    ...(await listing(parent))
      .filter((name) => name.startsWith(stagingPrefix))
      .map((name) => ({ at: path.join(parent, name), pid: Number(name.slice(stagingPrefix.length).split('-')[0]) })),
    ...(await listing(packsDir))
      .filter((name) => name.endsWith('.tmp'))
      .map((name) => ({ at: path.join(packsDir, name), pid: Number(/\.(\d+)-[0-9a-f]+\.tmp$/.exec(name)?.[1]) })),
  ];
  for (const { at, pid } of leftovers) {
    const info = await fs.lstat(at).catch(log.caught('a leftover was removed meanwhile (by another Kiln)', null));
    if (!info || (processAlive(pid) && now - info.mtimeMs < LEFTOVER_MS)) continue;
    await fs.rm(at, { recursive: true, force: true });
    log.info("swept a history batch's leftover: its process died before the batch was in place", { path: at, pid });
  }
}

function listing(dir: string): Promise<string[]> {
  return fs.readdir(dir).catch(log.caught('no history folder yet: no leftovers', [] as string[]));
}

/** Whether process `pid` runs (EPERM: it does, as another user's); a pid not parsed counts as gone. */
function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

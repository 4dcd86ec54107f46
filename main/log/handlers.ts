import { open } from 'node:fs/promises';
import type { HandlersFor } from '../router';
import { logFileOf } from './logger';

/** What "Open Log" shows at most: the newest part of the file, from a whole line on. */
const SHOWN_BYTES = 1024 * 1024;

/** The newest part of `<dataDir>/logs/kiln.log`; a log not written yet reads as empty. */
export async function readLogTail(
  dataDir: string,
  limit = SHOWN_BYTES,
): Promise<{ path: string; text: string; truncated: boolean; size: number }> {
  const file = logFileOf(dataDir);
  const handle = await open(file, 'r').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return null;
    throw err;
  });
  if (!handle) return { path: file, text: '', truncated: false, size: 0 };
  try {
    const { size } = await handle.stat();
    const start = Math.max(0, size - limit);
    const buffer = Buffer.alloc(size - start);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, start);
    let text = buffer.subarray(0, bytesRead).toString('utf8');
    // A cut in the middle of a record starts at the next whole one.
    if (start > 0) text = text.slice(text.indexOf('\n') + 1);
    return { path: file, text, truncated: start > 0, size };
  } finally {
    await handle.close();
  }
}

export function logHandlers(dataDir: string): HandlersFor<'log.read'> {
  return { 'log.read': () => readLogTail(dataDir) };
}

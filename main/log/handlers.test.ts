import * as fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { logHandlers, readLogTail } from './handlers';
import { closeLog, createLogger, logFileOf, openLog } from './logger';

const dirs: string[] = [];
afterEach(() => {
  closeLog();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function dataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kiln-log-read-'));
  dirs.push(dir);
  return dir;
}

describe('log.read (Open Log)', () => {
  it('answers where the log is, and what it holds', async () => {
    const dir = dataDir();
    openLog({ dir: path.dirname(logFileOf(dir)) });
    createLogger('t').warn('seen by Open Log');
    const answer = await logHandlers(dir)['log.read']({});
    expect(answer).toMatchObject({ path: logFileOf(dir), truncated: false });
    expect(answer.text).toContain('"message":"seen by Open Log"');
  });

  it('shows only the newest part of a long log, from a whole record on', async () => {
    const dir = dataDir();
    openLog({ dir: path.dirname(logFileOf(dir)) });
    for (let i = 0; i < 50; i++) createLogger('t').info(`record ${i}`);
    const { text, truncated, size } = await readLogTail(dir, 500);
    expect(truncated).toBe(true);
    expect(size).toBe(fs.statSync(logFileOf(dir)).size);
    const lines = text.split('\n').filter(Boolean);
    for (const line of lines) expect(() => JSON.parse(line) as unknown).not.toThrow();
    expect(lines.at(-1)).toContain('"record 49"');
  });

  it('reads as empty before anything was logged', async () => {
    const dir = dataDir();
    expect(await readLogTail(dir)).toEqual({ path: logFileOf(dir), text: '', truncated: false, size: 0 });
  });
});

import * as fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { closeLog, createLogger, logFileOf, openLog } from './logger';

let dir: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kiln-log-'));
});

afterEach(() => {
  closeLog();
  vi.restoreAllMocks();
  fs.rmSync(dir, { recursive: true, force: true });
});

function records(file = path.join(dir, 'logs', 'kiln.log')): Record<string, unknown>[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('the log', () => {
  it('writes JSON lines with time, level, scope, message and fields, from the configured level up', () => {
    openLog({ dir: path.join(dir, 'logs') });
    const log = createLogger('workspace');
    log.debug('not written at info');
    log.info('opened', { root: '/w' });
    log.child('trash').warn('refused', { code: 'EXDEV' });
    const [opened, refused] = records();
    expect(records()).toHaveLength(2);
    expect(opened).toMatchObject({ level: 'info', scope: 'workspace', message: 'opened', root: '/w' });
    expect(Date.parse(opened.time as string)).not.toBeNaN();
    expect(refused).toMatchObject({ level: 'warn', scope: 'workspace.trash', code: 'EXDEV' });
  });

  it('is at <dataDir>/logs/kiln.log, the folder 0700 and the file 0600, narrowing looser bits left before', () => {
    const logs = path.dirname(logFileOf(dir));
    fs.mkdirSync(logs, { mode: 0o755 });
    fs.writeFileSync(logFileOf(dir), '', { mode: 0o644 });
    fs.chmodSync(logs, 0o755);
    fs.chmodSync(logFileOf(dir), 0o644);
    openLog({ dir: logs });
    createLogger('t').info('x');
    expect(fs.statSync(logs).mode & 0o777).toBe(0o700);
    expect(fs.statSync(logFileOf(dir)).mode & 0o777).toBe(0o600);
  });

  it('rotates by size, keeping the newest files only, each 0600', () => {
    const logs = path.join(dir, 'logs');
    openLog({ dir: logs, maxBytes: 400, keep: 2 });
    const log = createLogger('rot');
    for (let i = 0; i < 40; i++) log.info(`record ${i}`, { pad: 'x'.repeat(60) });
    expect(fs.readdirSync(logs).sort()).toEqual(['kiln.log', 'kiln.log.1', 'kiln.log.2']);
    for (const name of fs.readdirSync(logs)) {
      expect(fs.statSync(path.join(logs, name)).size).toBeLessThanOrEqual(400);
      expect(fs.statSync(path.join(logs, name)).mode & 0o777).toBe(0o600);
    }
    // The newest record is in kiln.log, the ones before it in .1 then .2; the oldest are gone.
    const current = records(path.join(logs, 'kiln.log'));
    expect(current.at(-1)!.message).toBe('record 39');
    const older = records(path.join(logs, 'kiln.log.1'));
    expect(Number(String(older.at(-1)!.message).split(' ')[1]) + 1).toBe(
      Number(String(current[0].message).split(' ')[1]),
    );
    expect(records(path.join(logs, 'kiln.log.2')).some((r) => r.message === 'record 0')).toBe(false);
  });

  it('never writes a secret field, a secret in text, or file contents', () => {
    openLog({ dir: path.join(dir, 'logs'), level: 'debug' });
    const log = createLogger('secrets');
    log.info('connecting to http://127.0.0.1:8888/?token=abc123secret', {
      token: 'tok-1',
      api_key: 'key-2',
      apiKey: 'key-3',
      headers: { Authorization: 'Bearer key-4', accept: 'json' },
      password: 'pw-5',
      text: 'file body 6',
      bytes: Buffer.from('file body 7'),
      nested: [{ content: 'file body 8', path: 'a.py' }],
      err: new Error('401 with api_key=key-9'),
    });
    const written = fs.readFileSync(path.join(dir, 'logs', 'kiln.log'), 'utf8');
    for (const secret of ['abc123secret', 'tok-1', 'key-2', 'key-3', 'key-4', 'pw-5', 'key-9']) {
      expect(written).not.toContain(secret);
    }
    for (const body of ['file body 6', 'file body 7', 'file body 8']) expect(written).not.toContain(body);
    const [record] = records();
    expect(record).toMatchObject({
      token: '[redacted]',
      headers: { Authorization: '[redacted]', accept: 'json' },
      text: '[omitted: 11 chars]',
      bytes: '[omitted: 11 bytes]',
      nested: [{ content: '[omitted: 11 chars]', path: 'a.py' }],
      err: { name: 'Error', message: '401 with api_key=[redacted]' },
    });
    expect(record.message).toBe('connecting to http://127.0.0.1:8888/?token=[redacted]');
  });

  it('mirrors to stderr under --verbose, debug included', () => {
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    openLog({ dir: path.join(dir, 'logs'), verbose: true });
    createLogger('v').debug('seen');
    expect(stderr).toHaveBeenCalledWith(expect.stringContaining('"message":"seen"'));
    expect(records()[0]).toMatchObject({ level: 'debug', message: 'seen' });
  });

  it('caught() logs why a failure is expected, with its code, and resolves to the fallback', async () => {
    openLog({ dir: path.join(dir, 'logs'), level: 'debug' });
    const log = createLogger('c');
    const failure = Object.assign(new Error('ENOENT: no such file'), { code: 'ENOENT' });
    await expect(Promise.reject(failure).catch(log.caught('gone already; nothing to remove', false))).resolves.toBe(
      false,
    );
    expect(records()[0]).toMatchObject({
      level: 'debug',
      message: 'gone already; nothing to remove',
      err: { code: 'ENOENT', message: 'ENOENT: no such file' },
    });
  });

  it('writes nothing before a host opens it, and a record never fails its caller after the folder is gone', () => {
    createLogger('early').error('dropped');
    openLog({ dir: path.join(dir, 'logs') });
    fs.rmSync(path.join(dir, 'logs'), { recursive: true });
    expect(() => createLogger('late').error('lost, not thrown')).not.toThrow();
  });
});

import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  capText,
  CappedText,
  findExecutable,
  findProcessesByMarker,
  isAlive,
  killRunTree,
  newRunId,
  RUN_ID_VARIABLE,
  signalGroup,
  stopProcessGroup,
  trimMiddle,
} from '.';

const posix = process.platform !== 'win32';
const started: number[] = [];

afterEach(() => {
  // Whatever a failed test left behind.
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
});

/** Spawns `sh -c script` as the leader of a group of its own and resolves with the pids it prints on its first line. */
async function spawnTree(
  script: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ child: ChildProcess; pids: number[] }> {
  const child = spawn('sh', ['-c', script], { detached: true, stdio: ['ignore', 'pipe', 'inherit'], env });
  started.push(child.pid!);
  const line = await new Promise<string>((resolve, reject) => {
    let text = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      text += chunk;
      if (text.includes('\n')) resolve(text.split('\n')[0]);
    });
    // 'close', not 'exit': a shell that prints and ends can exit before its output is read.
    child.once('close', () => reject(new Error(`the tree exited before it said its pids: ${text}`)));
  });
  const pids = line.trim().split(/\s+/).map(Number);
  started.push(...pids);
  return { child, pids };
}

/** A lone node process in a session of its own, its command line naming `marker`. */
function spawnLoner(marker: string): number {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1e6)', marker], {
    detached: true,
    stdio: 'ignore',
  });
  child.unref();
  started.push(child.pid!);
  return child.pid!;
}

const gone = (pids: number[]) => expect.poll(() => pids.filter(isAlive), { timeout: 10_000 }).toEqual([]);

describe.runIf(posix)('killing a process group', () => {
  it('signalGroup ends the leader and every process of its group, and nothing outside it', async () => {
    const { child, pids } = await spawnTree('sleep 300 & a=$!; sleep 300 & echo $$ $a $!; wait');
    const bystander = spawnLoner('bystander');
    expect(pids).toHaveLength(3);
    expect(pids.every(isAlive)).toBe(true);
    const exited = new Promise((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    signalGroup(child.pid!, 'SIGKILL');
    expect(await exited).toBe('SIGKILL');
    await gone(pids);
    expect(isAlive(bystander)).toBe(true);
  });

  it('signalGroup on a group that is gone already is no error', async () => {
    const { child, pids } = await spawnTree('echo $$');
    if (child.exitCode === null && child.signalCode === null)
      await new Promise((resolve) => child.once('exit', resolve));
    await gone(pids);
    expect(() => signalGroup(child.pid!, 'SIGKILL')).not.toThrow();
  });

  it('killRunTree also ends processes that left the group and the session, found by their run id', async () => {
    const runId = newRunId();
    // setsid: a new session (and group); the double fork reparents it away from the run.
    const { child, pids } = await spawnTree(
      'sleep 300 & a=$!; b=$(setsid sleep 300 >/dev/null & echo $!); echo $$ $a $b; wait',
      {
        ...process.env,
        [RUN_ID_VARIABLE]: runId,
      },
    );
    const escapee = pids[2];
    expect(isAlive(escapee)).toBe(true);
    killRunTree(child.pid!, runId);
    await gone(pids);
  });

  it('killTreeOnExit ends a run still going when Kiln exits, and not one it forgot', async () => {
    // A Kiln stand-in: starts two runs, forgets the second, exits without stopping either.
    const kit = JSON.stringify(path.join(import.meta.dirname, 'kill.ts'));
    const script = `
      const { spawn } = await import('node:child_process');
      const kit = await import(${kit});
      const start = () => {
        const runId = kit.newRunId();
        const child = spawn('sh', ['-c', 'sleep 300 & echo $$ $!; wait'], { detached: true, stdio: ['ignore', 'pipe', 'ignore'], env: { ...process.env, [kit.RUN_ID_VARIABLE]: runId } });
        return new Promise((resolve) => child.stdout.once('data', (line) => resolve({ forget: kit.killTreeOnExit(child.pid, runId), pids: String(line).trim() })));
      };
      const kept = await start();
      const forgotten = await start();
      forgotten.forget();
      console.log(kept.pids + '|' + forgotten.pids);
      process.exit(0);`;
    const host = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    host.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    expect(await new Promise((resolve) => host.once('exit', resolve))).toBe(0);
    const [kept, forgotten] = out
      .trim()
      .split('|')
      .map((pids) => pids.split(' ').map(Number));
    started.push(...kept, ...forgotten);
    await gone(kept);
    expect(forgotten.every(isAlive)).toBe(true);
  });

  it('stopProcessGroup asks politely first, then forces a group that ignores it, then ends stragglers naming the marker', async () => {
    const marker = `kiln-marker-${newRunId()}`;
    // The leader ignores SIGTERM; its sleep does not.
    const { child, pids } = await spawnTree('trap "" TERM; sleep 300 & echo $$ $!; wait; sleep 300');
    const straggler = spawnLoner(marker);
    expect(await findProcessesByMarker(marker)).toEqual([straggler]);
    const exit = new Promise<NodeJS.Signals | null>((resolve) =>
      child.once('exit', (_code, signal) => resolve(signal)),
    );
    await stopProcessGroup(child.pid!, marker, 300);
    expect(await exit).toBe('SIGKILL');
    await gone([...pids, straggler]);
    expect(await findProcessesByMarker(marker)).toEqual([]);
  });

  it('stopProcessGroup lets a group that heeds SIGTERM exit on its own', async () => {
    const { child, pids } = await spawnTree('echo $$; exec sleep 300');
    const exit = new Promise<NodeJS.Signals | null>((resolve) =>
      child.once('exit', (_code, signal) => resolve(signal)),
    );
    await stopProcessGroup(child.pid!, null, 10_000);
    expect(await exit).toBe('SIGTERM');
    await gone(pids);
  });
});

describe('findExecutable', () => {
  let dir = '';
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function tool(folder: string, name: string, mode: number): string {
    const file = path.join(dir, folder, name);
    writeFileSync(file, '#!/bin/sh\n');
    chmodSync(file, mode);
    return file;
  }

  it.runIf(posix)(
    'searches PATH in order, skips what is not executable, and checks a path with a slash as is',
    async () => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'kiln-which-'));
      for (const folder of ['a', 'b', 'c']) mkdirSync(path.join(dir, folder));
      tool('a', 'tool', 0o644);
      const second = tool('b', 'tool', 0o755);
      tool('c', 'tool', 0o755);
      const envPath = ['', path.join(dir, 'a'), path.join(dir, 'b'), path.join(dir, 'c')].join(path.delimiter);
      expect(await findExecutable('tool', envPath)).toBe(second);
      expect(await findExecutable('missing', envPath)).toBeNull();
      expect(await findExecutable('tool', undefined)).toBeNull();
      expect(await findExecutable(second, undefined)).toBe(second);
      expect(await findExecutable(path.join(dir, 'a', 'tool'), envPath)).toBeNull();
      expect(await findExecutable(path.join(dir, 'b'), envPath)).toBeNull();
    },
  );
});

describe('capped output', () => {
  it('keeps a short text whole', () => {
    expect(capText('hello', { head: 3, tail: 3 })).toEqual({ head: 'hel', tail: 'lo', omitted: 0 });
    expect(trimMiddle('hello', 10)).toBe('hello');
  });

  it('keeps the head and the tail of a long stream, however it arrives, and says how much it dropped', () => {
    const text = Array.from({ length: 5000 }, (_, i) => `line ${i}\n`).join('');
    const whole = capText(text, { head: 100, tail: 200 });
    expect(whole.head).toBe(text.slice(0, 100));
    expect(whole.tail).toBe(text.slice(-200));
    expect(whole.omitted).toBe(text.length - 300);
    for (const size of [1, 7, 4096]) {
      const stream = new CappedText({ head: 100, tail: 200 });
      for (let at = 0; at < text.length; at += size) stream.push(text.slice(at, at + size));
      expect(stream.parts()).toEqual(whole);
    }
    expect(trimMiddle(text, 300)).toBe(
      `${text.slice(0, 150)}\n[... ${text.length - 300} characters of output omitted ...]\n${text.slice(-150)}`,
    );
  });

  it('keeps only a head, or only a tail', () => {
    expect(capText('abcdefgh', { head: 3, tail: 0 })).toEqual({ head: 'abc', tail: '', omitted: 5 });
    const log = new CappedText({ head: 0, tail: 4 });
    for (const chunk of ['one ', 'two ', 'three']) log.push(chunk);
    expect(log.parts()).toEqual({ head: '', tail: 'hree', omitted: 9 });
  });
});

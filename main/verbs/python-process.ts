import { spawn } from 'node:child_process';
import os from 'node:os';
import { KilnError } from '../../shared/errors';
import {
  CappedText,
  headAndTail,
  killRunTree,
  killTreeOnExit,
  newRunId,
  RUN_ID_VARIABLE,
  signalGroup,
} from '../process';

export interface PythonProcessOptions {
  python: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  /** Per stream; beyond it the middle is dropped and a note says how much. */
  maxOutputChars: number;
  signal?: AbortSignal;
  /**
   * The tree cannot leave its container (a sandbox in a PID namespace of its own, torn down when its first process
   * dies): killing the process group is enough, with no sweep for escapees by run id.
   */
  contained?: boolean;
}

export interface PythonProcessOutcome {
  stdout: string;
  stderr: string;
  returncode: number;
  duration_ms: number;
  timed_out: boolean;
  cancelled: boolean;
}

/** How long to wait for the output pipes to drain after the process is gone (a stray holder may keep them open). */
const DRAIN_MS = 2000;

/**
 * Runs Python in a fresh session of its own. When the time limit passes (or the caller aborts) the whole tree is
 * killed; once the main process exits, anything it left running is killed too, including descendants that left
 * its session or were reparented by a double fork (see killRunTree), so a run never leaves processes behind.
 */
export function runPythonProcess(options: PythonProcessOptions): Promise<PythonProcessOutcome> {
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) {
      reject(new KilnError('E_CANCELLED', 'The run was cancelled before it started'));
      return;
    }
    const started = Date.now();
    const runId = newRunId();
    const child = spawn(options.python, options.args, {
      cwd: options.cwd,
      env: { ...options.env, [RUN_ID_VARIABLE]: runId },
      detached: process.platform !== 'win32',
      stdio: ['ignore', 'pipe', 'pipe'],
      windowsHide: true,
    });
    const stdout = new CappedText(headAndTail(options.maxOutputChars));
    const stderr = new CappedText(headAndTail(options.maxOutputChars));
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => stdout.push(chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => stderr.push(chunk));

    let timedOut = false;
    let cancelled = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null; at: number } | null = null;
    let settled = false;

    const untrack = child.pid !== undefined ? killTreeOnExit(child.pid, runId) : () => {};
    const stop = () => {
      if (child.pid === undefined) return;
      if (options.contained) signalGroup(child.pid, 'SIGKILL');
      else killRunTree(child.pid, runId);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, options.timeoutMs);
    const onAbort = () => {
      cancelled = true;
      stop();
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });

    const finish = () => {
      if (settled || !exit) return;
      settled = true;
      untrack();
      clearTimeout(timer);
      clearTimeout(drainTimer);
      options.signal?.removeEventListener('abort', onAbort);
      const signalNumber = exit.signal ? (os.constants.signals[exit.signal] ?? 9) : 0;
      resolve({
        stdout: stdout.toString(),
        stderr: stderr.toString(),
        returncode: exit.code ?? -signalNumber,
        duration_ms: exit.at - started,
        timed_out: timedOut,
        cancelled,
      });
    };
    let drainTimer: NodeJS.Timeout | undefined;

    child.once('error', (err: NodeJS.ErrnoException) => {
      if (settled) return;
      settled = true;
      untrack();
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      reject(
        new KilnError(
          err.code === 'ENOENT' ? 'E_NO_JUPYTER' : 'E_INTERNAL',
          `Could not start Python (${options.python}): ${err.message}`,
        ),
      );
    });
    child.once('exit', (code, signal) => {
      exit = { code, signal, at: Date.now() };
      // Whatever the script left running in its group goes with it.
      stop();
      drainTimer = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish();
      }, DRAIN_MS);
    });
    child.once('close', finish);
  });
}

import { spawn as spawnPty, type IPty } from '@lydell/node-pty';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { Emitter, type Event } from '../../shared/base/event';
import type { EventPayload } from '../../shared/contract';
import { KilnError } from '../../shared/errors';
import { logListenerError } from '../events';
import { signalGroup, signalSessionMembers } from '../process';

export interface TerminalServiceOptions {
  /** The workspace root: every terminal starts here. */
  root: string;
  /**
   * Whether the operator trusts the workspace. The terminal is the operator's own shell either way, but only a
   * trusted workspace's src/ goes on its PYTHONPATH (an untrusted one's sitecustomize.py would run with any python).
   */
  trusted: () => boolean;
  /** The shell to run; by default the user's ($SHELL, or COMSPEC on Windows). */
  shell?: string;
}

/** Output the renderer has not drawn yet beyond which the shell is paused, and below which it resumes. */
const HIGH_WATER_CHARS = 256 * 1024;
const LOW_WATER_CHARS = 32 * 1024;
/** Output arriving within this window goes out as one event instead of many small ones. */
const COALESCE_MS = 8;
const COALESCE_CHARS = 64 * 1024;
/** A shell that ignores the hang-up is killed outright after this long. */
const KILL_GRACE_MS = 1500;

interface Terminal {
  pty: IPty;
  unacked: number;
  paused: boolean;
  pending: string;
  timer: NodeJS.Timeout | null;
  exited: Promise<void>;
}

/**
 * Terminals in the workspace: a pty per terminal running the user's shell, output streamed as events
 * with back-pressure (the shell is paused while the renderer is far behind), ended with their tab or
 * at shutdown.
 */
export class TerminalService {
  private readonly terminals = new Map<string, Terminal>();
  private disposed = false;
  private readonly outputEmitter = new Emitter<EventPayload<'terminal.data'>>({ onListenerError: logListenerError });
  private readonly exitEmitter = new Emitter<EventPayload<'terminal.exit'>>({ onListenerError: logListenerError });
  /** A terminal's shell wrote output (coalesced: a burst is one event). */
  readonly onDidWrite: Event<EventPayload<'terminal.data'>> = this.outputEmitter.event;
  /** A terminal's shell ended on its own or by a kill (not fired for the shells ended by dispose). */
  readonly onDidExit: Event<EventPayload<'terminal.exit'>> = this.exitEmitter.event;

  constructor(private readonly options: TerminalServiceOptions) {}

  create(cols: number, rows: number): { id: string; shell: string; cwd: string } {
    if (this.disposed) throw new KilnError('E_SHUTTING_DOWN', 'Kiln is shutting down');
    const shell = this.options.shell ?? defaultShell();
    const id = randomUUID();
    let pty: IPty;
    try {
      pty = spawnPty(shell, [], {
        name: 'xterm-256color',
        cols,
        rows,
        cwd: this.options.root,
        env: this.environment(),
      });
    } catch (err) {
      throw new KilnError('E_NOT_FOUND', `Could not start the shell ${shell}: ${(err as Error).message}`);
    }
    let exited!: () => void;
    const terminal: Terminal = {
      pty,
      unacked: 0,
      paused: false,
      pending: '',
      timer: null,
      exited: new Promise((r) => (exited = r)),
    };
    this.terminals.set(id, terminal);
    pty.onData((data) => {
      terminal.pending += data;
      terminal.unacked += data.length;
      if (terminal.pending.length >= COALESCE_CHARS) this.flush(id, terminal);
      else terminal.timer ??= setTimeout(() => this.flush(id, terminal), COALESCE_MS);
      if (!terminal.paused && terminal.unacked > HIGH_WATER_CHARS) {
        terminal.paused = true;
        pty.pause();
      }
    });
    pty.onExit(({ exitCode, signal }) => {
      this.flush(id, terminal);
      this.terminals.delete(id);
      exited();
      if (!this.disposed) this.exitEmitter.fire({ id, exitCode, signal: signal || undefined });
    });
    return { id, shell, cwd: this.options.root };
  }

  input(id: string, data: string): void {
    this.get(id).pty.write(data);
  }

  resize(id: string, cols: number, rows: number): void {
    this.get(id).pty.resize(cols, rows);
  }

  /** The renderer drew `chars` more characters: resume a paused shell once it has caught up. */
  ack(id: string, chars: number): void {
    const terminal = this.terminals.get(id);
    if (!terminal) return;
    terminal.unacked = Math.max(0, terminal.unacked - chars);
    if (terminal.paused && terminal.unacked < LOW_WATER_CHARS) {
      terminal.paused = false;
      terminal.pty.resume();
    }
  }

  /** Ends the shell and what runs in it: a hang-up first, as closing a terminal window does, then a kill. */
  async kill(id: string): Promise<void> {
    const terminal = this.terminals.get(id);
    if (!terminal) return;
    if (terminal.paused) terminal.pty.resume();
    const pid = terminal.pty.pid;
    // As closing a terminal window does, its whole session is hung up: background jobs too, which some shells
    // (dash) do not pass the hang-up on to. What ignores it (nohup) goes on.
    signalSessionMembers(pid, 'SIGHUP');
    terminal.pty.kill('SIGHUP');
    const grace = setTimeout(() => {
      // The shell's process group: jobs it started that ignore the hang-up go too.
      signalGroup(pid, 'SIGKILL');
      try {
        terminal.pty.kill('SIGKILL');
      } catch {
        // expected: the shell already ended after the hang-up
      }
    }, KILL_GRACE_MS);
    await terminal.exited;
    clearTimeout(grace);
  }

  /** Every terminal's shell ends with Kiln. */
  async dispose(): Promise<void> {
    this.disposed = true;
    await Promise.all([...this.terminals.keys()].map((id) => this.kill(id)));
    this.outputEmitter.dispose();
    this.exitEmitter.dispose();
  }

  private flush(id: string, terminal: Terminal): void {
    if (terminal.timer) clearTimeout(terminal.timer);
    terminal.timer = null;
    if (!terminal.pending) return;
    const data = terminal.pending;
    terminal.pending = '';
    this.outputEmitter.fire({ id, data });
  }

  private get(id: string): Terminal {
    const terminal = this.terminals.get(id);
    if (!terminal) throw new KilnError('E_NOT_FOUND', 'That terminal has ended');
    return terminal;
  }

  private environment(): Record<string, string> {
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
    // Like the verbs' runs: a trusted workspace's src/ is importable (read when the terminal opens).
    if (this.options.trusted()) {
      const src = path.join(this.options.root, 'src');
      env.PYTHONPATH = env.PYTHONPATH ? `${src}${path.delimiter}${env.PYTHONPATH}` : src;
    }
    env.TERM = 'xterm-256color';
    env.COLORTERM = 'truecolor';
    env.TERM_PROGRAM = 'Kiln';
    return env;
  }
}

function defaultShell(): string {
  if (process.platform === 'win32') return process.env.COMSPEC || 'powershell.exe';
  return process.env.SHELL || '/bin/bash';
}

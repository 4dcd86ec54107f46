import * as fs from 'node:fs';
import path from 'node:path';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** Extra facts about a record; secrets and contents in them are redacted before anything is written. */
export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  /**
   * A `.catch` handler for a failure that is expected and survivable: logs `why` with the error at `level`
   * (default `debug`) and resolves to `fallback`, so the swallow leaves a trace. `.catch(log.caught('why', null))`.
   */
  caught<T>(why: string, fallback: T, level?: LogLevel): (err: unknown) => T;
  /** The same sink under a narrower scope (`workspace` → `workspace.trash`). */
  child(scope: string): Logger;
}

export interface LogOptions {
  /** Where `kiln.log` and its rotated files go; made 0700, the files 0600. */
  dir: string;
  /** The lowest level written; default `info` (`debug` under `verbose`). */
  level?: LogLevel;
  /** Also write each record to stderr (the hosts' `--verbose`). */
  verbose?: boolean;
  /** The file's size at which it rotates (kiln.log → kiln.log.1 → …); default 5 MB. */
  maxBytes?: number;
  /** How many rotated files are kept besides kiln.log; default 3. */
  keep?: number;
  /** The file's name in `dir`; default `kiln.log` (the MCP server writes `mcp.log`, so two processes never rotate one file). */
  name?: string;
}

export const LOG_FILE = 'kiln.log';

/** Where the log of a data folder is (`<dataDir>/logs/kiln.log`). */
export function logFileOf(dataDir: string): string {
  return path.join(dataDir, 'logs', LOG_FILE);
}

/** One sink per process: every scope writes to it; nothing is written before `openLog`. */
let sink: LogSink | null = null;

/** Starts the process's log (a host calls it once, as soon as it has the data folder). Reopening replaces it. */
export function openLog(options: LogOptions): LogSink {
  sink?.close();
  sink = new LogSink(options);
  return sink;
}

/** Stops writing (tests; a host at exit). */
export function closeLog(): void {
  sink?.close();
  sink = null;
}

/** A logger for one area of main (`createLogger('workspace')`); cheap, so a module keeps one at its top. */
export function createLogger(scope: string): Logger {
  const write = (level: LogLevel, message: string, fields?: LogFields) => sink?.write(level, scope, message, fields);
  return {
    debug: (message, fields) => write('debug', message, fields),
    info: (message, fields) => write('info', message, fields),
    warn: (message, fields) => write('warn', message, fields),
    error: (message, fields) => write('error', message, fields),
    caught:
      (why, fallback, level = 'debug') =>
      (err) => {
        write(level, why, { err });
        return fallback;
      },
    child: (sub) => createLogger(`${scope}.${sub}`),
  };
}

export class LogSink {
  readonly file: string;
  private readonly level: number;
  private readonly verbose: boolean;
  private readonly maxBytes: number;
  private readonly keep: number;
  private fd: number | null = null;
  private size = 0;

  constructor(options: LogOptions) {
    this.file = path.join(options.dir, options.name ?? LOG_FILE);
    this.verbose = Boolean(options.verbose);
    this.level = RANK[options.level ?? (options.verbose ? 'debug' : 'info')];
    this.maxBytes = options.maxBytes ?? 5 * 1024 * 1024;
    this.keep = options.keep ?? 3;
    fs.mkdirSync(options.dir, { recursive: true, mode: 0o700 });
    fs.chmodSync(options.dir, 0o700);
    this.open();
  }

  write(level: LogLevel, scope: string, message: string, fields?: LogFields): void {
    if (RANK[level] < this.level || this.fd === null) return;
    const record = {
      time: new Date().toISOString(),
      level,
      scope,
      message: redactText(message),
      ...redactFields(fields),
    };
    const line = `${JSON.stringify(record)}\n`;
    if (this.verbose) process.stderr.write(line);
    const bytes = Buffer.byteLength(line);
    // Logging never fails what it logs: a full disk or a removed folder loses the record, nothing else.
    try {
      if (this.size > 0 && this.size + bytes > this.maxBytes) this.rotate();
      fs.writeSync(this.fd!, line);
      this.size += bytes;
    } catch {
      // expected: the log itself is where a failure would go, so a failed write has nowhere to be told
    }
  }

  close(): void {
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
  }

  private open(): void {
    this.fd = fs.openSync(this.file, 'a', 0o600);
    // A file left with looser bits (made by hand, or an older Kiln) is narrowed too.
    fs.fchmodSync(this.fd, 0o600);
    this.size = fs.fstatSync(this.fd).size;
  }

  /** kiln.log.(keep-1) → kiln.log.keep, …, kiln.log → kiln.log.1; the oldest falls off. */
  private rotate(): void {
    this.close();
    fs.rmSync(`${this.file}.${this.keep}`, { force: true });
    for (let i = this.keep - 1; i >= 1; i--) {
      if (fs.existsSync(`${this.file}.${i}`)) fs.renameSync(`${this.file}.${i}`, `${this.file}.${i + 1}`);
    }
    if (this.keep > 0) fs.renameSync(this.file, `${this.file}.1`);
    else fs.rmSync(this.file, { force: true });
    this.open();
  }
}

/** Keys whose values are secrets: written as `[redacted]`. */
const SECRET_KEY = /token|api[-_]?key|authorization|password|passwd|secret|cookie|credential/i;
/** Keys whose values are a file's (or a cell's, or a message's) contents: written only as their length. */
const CONTENT_KEY = /^(text|content|contents|bytes|body|data|source|buffer|prompt)$/i;
/** A secret inside free text: `?token=…`, `Authorization: Bearer …`, `api_key=…`. */
const SECRET_IN_TEXT = /((?:token|api[-_]?key|password|secret)["']?\s*[=:]\s*["']?|bearer\s+)[^\s&"',;]+/gi;
const MAX_STRING = 2000;

export function redactText(text: string): string {
  const cut = text.length > MAX_STRING ? `${text.slice(0, MAX_STRING)}… (${text.length} chars)` : text;
  return cut.replace(SECRET_IN_TEXT, '$1[redacted]');
}

export function redactFields(fields: LogFields | undefined): LogFields {
  if (!fields) return {};
  const out = redactValue(fields, 0) as LogFields;
  // The record's own keys are never overwritten by a field.
  for (const key of ['time', 'level', 'scope', 'message']) delete out[key];
  return out;
}

function redactValue(value: unknown, depth: number, key = ''): unknown {
  if (key && SECRET_KEY.test(key)) return '[redacted]';
  if (key && CONTENT_KEY.test(key)) return omitted(value);
  if (typeof value === 'string') return redactText(value);
  if (Buffer.isBuffer(value) || value instanceof Uint8Array) return omitted(value);
  if (value instanceof Error) return errorFields(value, depth);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= 4) return '[nested]';
  if (Array.isArray(value)) return value.slice(0, 20).map((item) => redactValue(item, depth + 1));
  const out: LogFields = {};
  for (const [k, v] of Object.entries(value)) out[k] = redactValue(v, depth + 1, k);
  return out;
}

function omitted(value: unknown): string {
  const length =
    typeof value === 'string' ? `${value.length} chars` : value instanceof Uint8Array ? `${value.length} bytes` : '';
  return length ? `[omitted: ${length}]` : '[omitted]';
}

/** An error as its code and message (secrets in the message redacted); the stack only for unexpected ones. */
function errorFields(err: Error, depth: number): LogFields {
  const code = (err as { code?: unknown }).code;
  const out: LogFields = { name: err.name, message: redactText(err.message) };
  if (code !== undefined) out.code = code;
  if (!code && err.stack) out.stack = redactText(err.stack.split('\n').slice(1, 6).join('\n'));
  if (err.cause !== undefined && depth < 4) out.cause = redactValue(err.cause, depth + 1);
  return out;
}

/**
 * A host's start: the log in `<dataDir>/logs`, mirrored to stderr when the command line has `--verbose`
 * (KILN_LOG_LEVEL=debug|info|warn|error sets the level).
 */
export function startLog(
  dataDir: string,
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  name = LOG_FILE,
): LogSink {
  const level = env.KILN_LOG_LEVEL && env.KILN_LOG_LEVEL in RANK ? (env.KILN_LOG_LEVEL as LogLevel) : undefined;
  return openLog({ dir: path.dirname(logFileOf(dataDir)), verbose: argv.includes('--verbose'), level, name });
}

import { execFile } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { createLogger } from '../log';
import { SECCOMP_FD } from './hardening';

const log = createLogger('sandbox.overlay');

const run = promisify(execFile);

/**
 * A run's writes staged in an overlay: the workspace is the lower layer, `upper` (in Kiln's private data folder)
 * takes every file the code creates, changes or deletes, and Kiln applies them through its own write path once the
 * run ended, so local history keeps each version replaced and "Undo this turn" covers what the code wrote.
 */
export interface RunOverlay {
  /** The run's private folder: `upper/`, `work/` and the `mounted` marker. */
  dir: string;
  upper: string;
  /**
   * When the run's folder was made, on the filesystem's own clock (its ctime): a workspace entry with a ctime from
   * then on was changed while the run went on. Date.now() would not do: ctimes come from the kernel's coarse clock,
   * which lags it by up to a tick, so a file saved just before the run could look changed during it.
   */
  startedAt: number;
  /** Whether the overlay was in place for the run (else the code wrote to the workspace directly). */
  mounted(): Promise<boolean>;
  /**
   * Notes who runs this run and for whom (run.json): should this process die before the run's writes are applied,
   * the next Kiln on the workspace finds them by it and applies them (main/verbs/interrupted-runs.ts).
   */
  describe(record: Omit<RunRecord, 'pid' | 'pidStartedAt' | 'startedAt'>): Promise<void>;
  /** Leaves the run's folder in place at dispose (some of its writes could not be applied: they stay here). */
  keep(): Promise<void>;
  /** Removes the run's folder, whatever it holds, unless kept. */
  dispose(): Promise<void>;
}

/**
 * The overlay is mounted by `unshare` (a user and mount namespace of the run's own, where an unprivileged mount of
 * overlayfs is allowed, kernel 5.11+) and bubblewrap runs inside it. `userxattr`: the unprivileged form, its
 * opaque marks in `user.overlay.*`. `redirect_dir=nofollow`: a folder renamed is copied, so the upper layer says
 * everything by itself (no redirect to follow back into the workspace). `volatile` (5.10+): no sync of the upper
 * layer's filesystem when the run's namespace goes (that syncfs of the data folder's disk cost 50-250 ms per run on
 * a busy machine); Kiln applies the writes and syncs the workspace itself. `-i -n`: no helper, no mtab (a few ms
 * less on every run). If the mount fails the script still runs the code, on the workspace itself: the marker says.
 */
const MOUNT_SCRIPT =
  'lower=$1 upper=$2 work=$3 marker=$4 strict=$5 procs=$6 bpf=$7; shift 7; ' +
  // The run's pids cgroup joined first (before the mount's fork), and the seccomp program opened for bwrap: here,
  // rather than in a shell more in front of unshare (an exec less per run). Either failing, nothing runs.
  `if [ "$procs" != - ]; then echo $$ > "$procs" || exit 125; fi; if [ "$bpf" != - ]; then exec ${SECCOMP_FD}<"$bpf" || exit 125; fi; ` +
  // The marker is opened before the mount: a data folder inside the workspace is under the overlay once mounted.
  'exec 3>"$marker"; ' +
  'if mount -i -n -t overlay overlay -o "userxattr,volatile,redirect_dir=nofollow,lowerdir=$lower,upperdir=$upper,workdir=$work" "$lower" ' +
  '2>/dev/null; then echo mounted >&3; ' +
  // Strict: the run counts on the overlay to keep it from protected paths it could otherwise create; none, no run.
  'elif [ "$strict" = 1 ]; then echo "kiln: the run\'s overlay could not be mounted, so the code was not run" >&2; exit 125; fi; ' +
  'exec 3>&-; exec "$@"';

/** Overlay options are comma-separated and lowerdir colon-separated: such paths are not staged. */
const UNSAFE_IN_OPTIONS = /[,:\\]/;

/**
 * Why a run over this workspace cannot be staged, or null. overlayfs stacks one filesystem: a filesystem mounted
 * inside the workspace (a data disk, a bind mount) would show as its empty mount point, so such a workspace is not
 * staged. Read from this process's mount table (the run's namespace starts as a copy of it).
 */
export async function unstageableReason(workspaceRoot: string, parent: string): Promise<string | null> {
  if (UNSAFE_IN_OPTIONS.test(workspaceRoot) || UNSAFE_IN_OPTIONS.test(parent))
    return 'the workspace or data folder path has a character overlayfs options cannot take (, : or \\)';
  const table = readMountTable();
  const inside = table
    .split('\n')
    .map((line) => unescapeMountPath(line.split(' ')[4] ?? ''))
    .find((mountPoint) => mountPoint.startsWith(`${workspaceRoot}/`));
  return inside ? `another filesystem is mounted inside the workspace (${inside})` : null;
}

/** This process's mount table, read synchronously (procfs, a few KB: less than the hops of an async read). */
function readMountTable(): string {
  try {
    return readFileSync('/proc/self/mountinfo', 'utf8');
  } catch {
    // expected: no /proc, no mount table to read; bwrap's overlay needs Linux, where it is there.
    return '';
  }
}

/** mountinfo writes space, tab, newline and backslash as octal escapes. */
function unescapeMountPath(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

export interface OverlayWrapOptions {
  /** Should the overlay not mount, the command is not run (else it runs on the workspace itself). */
  strict?: boolean;
  /** The run's pids cgroup (its `cgroup.procs`), joined before anything forks. */
  cgroupProcs?: string;
  /** The seccomp program, opened on fd SECCOMP_FD for bwrap's `--seccomp`. */
  seccompFile?: string;
}

/** Makes the run's private folders under `parent` (0700) and wraps `command` so it runs over the overlay. */
export async function prepareRunOverlay(
  parent: string,
  workspaceRoot: string,
  unshare: string,
): Promise<{
  overlay: RunOverlay;
  wrap(command: string[], options?: OverlayWrapOptions): string[];
} | null> {
  if (UNSAFE_IN_OPTIONS.test(workspaceRoot) || UNSAFE_IN_OPTIONS.test(parent)) return null;
  // Synchronous: five metadata calls in Kiln's own folder, on every staged run's way to its start, where each
  // thread-pool hop waits its turn under load.
  mkdirSync(parent, { recursive: true, mode: 0o700 });
  const dir = mkdtempSync(path.join(parent, 'run-'));
  const upper = path.join(dir, 'upper');
  const work = path.join(dir, 'work');
  const marker = path.join(dir, 'mounted');
  mkdirSync(upper, { mode: 0o700 });
  mkdirSync(work, { mode: 0o700 });
  const startedAt = statSync(upper).ctimeMs;
  let kept = false;
  const overlay: RunOverlay = {
    dir,
    upper,
    startedAt,
    // Anything in the upper layer was written through the overlay, whatever the marker says: never discarded.
    mounted: async () => readMarker(marker).startsWith('mounted') || upperNames(upper).length > 0,
    describe: async (record) => {
      const full: RunRecord = {
        ...record,
        pid: process.pid,
        pidStartedAt: await ownStartTime(),
        startedAt,
      };
      await fs.writeFile(path.join(dir, RUN_RECORD), JSON.stringify(full), { mode: 0o600 });
    },
    keep: async () => {
      kept = true;
      await fs.writeFile(path.join(dir, 'kept'), '');
    },
    dispose: () => (kept ? Promise.resolve() : removeRunDir(dir)),
  };
  return {
    overlay,
    wrap: (command, options) => [
      unshare,
      '-Urm',
      '/bin/sh',
      '-c',
      MOUNT_SCRIPT,
      'kiln-run',
      workspaceRoot,
      upper,
      work,
      marker,
      options?.strict ? '1' : '0',
      options?.cgroupProcs ?? '-',
      options?.seccompFile ?? '-',
      ...command,
    ],
  };
}

/** The overlay's marker (a few bytes), read synchronously once the run ended; '' when the run never wrote it. */
function readMarker(marker: string): string {
  try {
    return readFileSync(marker, 'utf8');
  } catch {
    // expected: no marker means the run never mounted the overlay
    return '';
  }
}

/**
 * What the run left at the top of its upper layer (empty: it wrote nothing through the overlay), read synchronously:
 * one small folder, asked on every staged run's way to its answer.
 */
export function upperNames(upper: string): string[] {
  try {
    return readdirSync(upper);
  } catch {
    // expected: no upper layer left means nothing was written through it
    return [];
  }
}

/** The run's record in its folder (see RunOverlay.describe). */
const RUN_RECORD = 'run.json';

/** Who ran a run and for whom: enough for another Kiln to apply its writes when this one died first. */
export interface RunRecord {
  /** The workspace root the run's overlay covered (realpath'd). */
  workspaceRoot: string;
  /** The write cause the run's writes belong to (the Agent's turn, an MCP batch), so undo of the turn covers them. */
  cause: Record<string, string | boolean | undefined>;
  /** The process that ran it, and that process's start (a pid is reused: both must match for it to be alive). */
  pid: number;
  pidStartedAt: string | null;
  startedAt: number;
}

/** Reads a run folder's record; null when there is none (the run never started code) or it does not parse. */
export async function readRunRecord(dir: string): Promise<RunRecord | null> {
  // expected: no record when the run never started code.
  const text = await fs.readFile(path.join(dir, RUN_RECORD), 'utf8').catch(() => null);
  if (text === null) return null;
  try {
    const record = JSON.parse(text) as RunRecord;
    return typeof record.workspaceRoot === 'string' && typeof record.pid === 'number' ? record : null;
  } catch {
    return null;
  }
}

/** The process's start time as the kernel counts it (/proc/<pid>/stat, field 22); null where there is no /proc. */
export async function processStartTime(pid: number): Promise<string | null> {
  // expected: no /proc, or the process is gone: no start time to compare.
  const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
  // The command name (field 2) may hold spaces and parentheses: the fields after it follow its last ')'.
  return stat ? (stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null) : null;
}

/** This process's start, read once: it is the same for every run it records. */
let ownStart: Promise<string | null> | null = null;
function ownStartTime(): Promise<string | null> {
  ownStart ??= processStartTime(process.pid);
  return ownStart;
}

/** Whether the process that wrote `record` (or claimed the run) still runs. */
export async function ownerAlive(pid: number, startedAt: string | null): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  const now = await processStartTime(pid);
  return now === null || startedAt === null || now === startedAt;
}

/**
 * A run folder this old is a crashed Kiln's (no run lasts a day). One kept for unapplied writes, or one a dead
 * Kiln left with a record (its writes wait for the next Kiln on its workspace to apply them), goes after a week.
 */
const STALE_RUN_MS = 24 * 3600_000;
const KEPT_RUN_MS = 7 * 24 * 3600_000;

/** Removes the run folders killed Kilns left under `parent` (another Kiln's current run is never that old). */
export async function sweepStaleRuns(parent: string, now = Date.now()): Promise<void> {
  // expected: no runs folder yet, nothing to sweep.
  for (const name of await fs.readdir(parent).catch(() => [] as string[])) {
    if (!name.startsWith('run-') && !name.startsWith('probe-')) continue;
    const dir = path.join(parent, name);
    // expected: removed meanwhile (another Kiln's sweep).
    const info = await fs.lstat(dir).catch(() => null);
    if (!info?.isDirectory()) continue;
    const kept =
      (await fs.access(path.join(dir, 'kept')).then(
        () => true,
        () => false,
      )) || (await readRunRecord(dir)) !== null;
    if (now - info.mtimeMs > (kept ? KEPT_RUN_MS : STALE_RUN_MS))
      await removeRunDir(dir).catch(
        log.caught('a stale run folder could not be removed; the next sweep tries again', undefined, 'warn'),
      );
  }
}

/**
 * overlayfs leaves its scratch folders mode 000 (work/work, and with `volatile` its marker work/work/incompat/
 * volatile/dirty): opened up first, parents first, so an owner without root's privilege can remove them.
 */
export async function removeRunDir(dir: string): Promise<void> {
  for (const scratch of ['work', 'work/incompat', 'work/incompat/volatile', 'work/incompat/volatile/dirty'])
    // expected: overlayfs makes only some of these (volatile's marker only with `volatile`).
    await fs.chmod(path.join(dir, 'work', scratch), 0o700).catch(() => undefined);
  await fs.rm(dir, { recursive: true, force: true, maxRetries: 2 });
}

/** One change a run made, as its upper layer records it (workspace-relative, POSIX). */
export type OverlayChange =
  /** A file the run created or changed: its new content is at `source` (in the upper layer). */
  | { kind: 'file'; path: string; source: string; size: number }
  | { kind: 'symlink'; path: string; source: string }
  /** A folder the run created (or that holds what it changed). */
  | { kind: 'dir'; path: string }
  /** Deleted: a whiteout. */
  | { kind: 'deleted'; path: string }
  /** A folder that replaced the workspace's folder of that name whole: what it does not hold is gone. */
  | { kind: 'opaque'; path: string };

/**
 * Reads what a run changed from its upper layer: walks only the upper layer (what the run touched, never the whole
 * workspace) and never follows a link. Parents come before their children. Whether a folder is opaque is read from
 * its xattr only where it matters (the workspace's folder holds names the upper one does not), with `python`,
 * since Node has no xattr call.
 */
export async function overlayChanges(upper: string, lowerRoot: string, python: string): Promise<OverlayChange[]> {
  const changes: OverlayChange[] = [];
  const ambiguous: { rel: string; at: number }[] = [];
  const walk = async (rel: string): Promise<void> => {
    const dir = rel ? path.join(upper, rel) : upper;
    const entries = await fs.readdir(dir, { withFileTypes: true });
    const names = new Set(entries.map((entry) => entry.name));
    if (rel) {
      // expected: the run made this folder, the workspace has none.
      const lowerNames = await fs.readdir(path.join(lowerRoot, rel)).catch(() => [] as string[]);
      if (lowerNames.some((name) => !names.has(name))) ambiguous.push({ rel, at: changes.length });
    }
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const childRel = rel ? `${rel}/${entry.name}` : entry.name;
      const source = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        changes.push({ kind: 'dir', path: childRel });
        await walk(childRel);
      } else if (entry.isSymbolicLink()) {
        changes.push({ kind: 'symlink', path: childRel, source });
      } else if (entry.isCharacterDevice()) {
        const info = await fs.lstat(source);
        if (info.rdev === 0) changes.push({ kind: 'deleted', path: childRel });
      } else if (entry.isFile()) {
        // Synchronous: one small call per file, where a thread-pool hop each cost most of the walk of a run's 2,000.
        changes.push({ kind: 'file', path: childRel, source, size: lstatSync(source).size });
      }
      // Sockets, fifos and device nodes made by the run are not files to keep.
    }
  };
  await walk('');
  if (ambiguous.length === 0) return changes;
  // An opaque folder hides the workspace's whole subtree, so a folder below it is opaque in effect too.
  const withAncestors = new Set(ambiguous.flatMap(({ rel }) => ancestorsAndSelf(rel)));
  const opaque = await opaqueFolders(upper, [...withAncestors], python);
  // Inserted after their folder's own entry, last first so the earlier indexes stay right.
  for (const { rel, at } of [...ambiguous].reverse()) {
    if (ancestorsAndSelf(rel).some((dir) => opaque.has(dir))) changes.splice(at, 0, { kind: 'opaque', path: rel });
  }
  return changes;
}

function ancestorsAndSelf(rel: string): string[] {
  const segments = rel.split('/');
  return segments.map((_, i) => segments.slice(0, i + 1).join('/'));
}

/** The folders among `rels` that overlayfs marked opaque (`user.overlay.opaque` = "y"). */
async function opaqueFolders(upper: string, rels: string[], python: string): Promise<Set<string>> {
  const script =
    'import os, sys\n' +
    'for p in sys.argv[1:]:\n' +
    '    try: v = os.getxattr(p, "user.overlay.opaque", follow_symlinks=False)\n' +
    '    except OSError: v = b""\n' +
    '    print("1" if v == b"y" else "0")\n';
  const { stdout } = await run(python, ['-c', script, ...rels.map((rel) => path.join(upper, rel))]);
  const flags = stdout.trim().split('\n');
  return new Set(rels.filter((_, i) => flags[i] === '1'));
}

/** Whether a run over an overlay can happen here: `unshare` found and an overlay mountable in a user namespace. */
export async function probeOverlay(unshare: string | null, scratchParent: string): Promise<boolean> {
  if (!unshare || UNSAFE_IN_OPTIONS.test(scratchParent)) return false;
  let dir: string | null = null;
  let runDir: string | null = null;
  try {
    await fs.mkdir(scratchParent, { recursive: true, mode: 0o700 });
    await sweepStaleRuns(scratchParent);
    dir = await fs.mkdtemp(path.join(scratchParent, 'probe-'));
    const lower = path.join(dir, 'lower');
    await fs.mkdir(lower);
    const prepared = await prepareRunOverlay(dir, lower, unshare);
    if (!prepared) return false;
    runDir = prepared.overlay.dir;
    const [command, ...args] = prepared.wrap(['/bin/true']);
    await run(command, args);
    return await prepared.overlay.mounted();
  } catch {
    return false;
  } finally {
    // The probe's run folder first: its scratch folders are opened up where removeRunDir knows to look.
    const leftBehind = log.caught(
      "the overlay probe's folder could not be removed; the stale-run sweep removes it",
      undefined,
      'warn',
    );
    if (runDir) await removeRunDir(runDir).catch(leftBehind);
    if (dir) await removeRunDir(dir).catch(leftBehind);
  }
}

import path from 'node:path';

/** A top-level system entry: bound read-only as a folder, or recreated as the same symlink (usr-merged /bin, /lib). */
export type SystemEntry = { path: string; kind: 'dir' } | { path: string; kind: 'symlink'; target: string };

/** Everything the sandbox of one run is made of; main gathers it from the machine, buildBwrapArgs only arranges it. */
export interface SandboxPlan {
  /** The workspace, realpath'd: read-write at its real path. */
  workspaceRoot: string;
  /** Absolute paths under the workspace the code may read but not change (scripts/, .kiln/, .git/): folders or files. */
  readOnlyInWorkspace: string[];
  /**
   * Protected paths under the workspace that do not exist yet (a folder with no .kiln/ or .git/): an empty read-only
   * folder is mounted there, so the code cannot create them. Its mount point is the only trace: in the run's overlay
   * (skipped by the apply) or, where writes go to the workspace directly, an empty folder left in it.
   */
  placeholders: string[];
  /** Where the empty home is mounted (the operator's $HOME path, so tools that look there find an empty folder). */
  home: string;
  /** /usr, /bin, /lib*, /etc and the like, as they exist on this machine. */
  system: SystemEntry[];
  /** Existing secret files (under /etc) shown as empty. */
  hiddenFiles: string[];
  /** Existing secret folders (under /etc) shown as empty. */
  hiddenDirs: string[];
  /** The interpreter's own folders outside the system ones (pyenv, conda, a venv): read-only. */
  extraReadOnly: string[];
  /**
   * Secrets inside what is bound (the workspace is $HOME or holds it: every hidden entry of that home, and Kiln's
   * data folder), shown empty over the bind: files as /dev/null, folders as an empty read-only tmpfs.
   */
  maskedFiles: string[];
  maskedDirs: string[];
  network: boolean;
  /**
   * With the network: a namespace of the run's own that pasta connects outward (network.ts), not the host's. The
   * caller adds the flags that hand the namespace to pasta.
   */
  outboundOnly?: boolean;
  env: Readonly<Record<string, string>>;
  cwd: string;
}

/** Whether `child` is `parent` or inside it (absolute, normalized paths). */
export function isWithin(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * bubblewrap's arguments (everything before `--` and the command). New user, PID, IPC, UTS and (unless the trusted
 * config allows the network) network namespaces; no capabilities; the sandbox dies with Kiln. Mount order matters:
 * later mounts cover earlier ones, so the empty /tmp and home come before the folders bound inside them.
 */
export function buildBwrapArgs(plan: SandboxPlan): string[] {
  const args = [
    '--unshare-user',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    ...(plan.network && !plan.outboundOnly ? ['--share-net'] : ['--unshare-net']),
    '--die-with-parent',
    '--new-session',
    '--hostname',
    'kiln-sandbox',
  ];
  for (const entry of plan.system) {
    if (entry.kind === 'symlink') args.push('--symlink', entry.target, entry.path);
    else args.push('--ro-bind', entry.path, entry.path);
  }
  for (const file of plan.hiddenFiles) args.push('--ro-bind', '/dev/null', file);
  for (const dir of plan.hiddenDirs) args.push('--tmpfs', dir, '--remount-ro', dir);
  args.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp');
  // With the network, names must resolve: /etc/resolv.conf often points into systemd-resolved's folder.
  if (plan.network) args.push('--ro-bind-try', '/run/systemd/resolve', '/run/systemd/resolve');
  if (plan.home !== '/' && plan.home !== '/tmp') args.push('--tmpfs', plan.home);
  // Parents before children, so a nested one is not hidden by its parent's mount.
  const extra = [...new Set(plan.extraReadOnly)]
    .filter((dir) => !isWithin(dir, plan.workspaceRoot))
    .sort((a, b) => a.length - b.length);
  for (const dir of extra) args.push('--ro-bind', dir, dir);
  args.push('--bind', plan.workspaceRoot, plan.workspaceRoot);
  for (const entry of plan.readOnlyInWorkspace) args.push('--ro-bind', entry, entry);
  for (const missing of plan.placeholders) args.push('--tmpfs', missing, '--remount-ro', missing);
  // Last, so no bind above uncovers them.
  for (const file of plan.maskedFiles) args.push('--ro-bind', '/dev/null', file);
  for (const dir of plan.maskedDirs) args.push('--tmpfs', dir, '--remount-ro', dir);
  args.push('--chdir', plan.cwd, '--clearenv');
  for (const [name, value] of Object.entries(plan.env)) args.push('--setenv', name, value);
  return args;
}

/** The command run inside: prlimit caps address space and processes, then the program. */
export function limitedCommand(
  prlimit: string,
  limits: { memoryBytes: number; processes: number },
  command: readonly string[],
): string[] {
  return [prlimit, `--as=${limits.memoryBytes}`, `--nproc=${limits.processes}`, '--', ...command];
}

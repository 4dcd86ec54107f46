import * as fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '../log';

const log = createLogger('protected-paths');
/** A path that is not there protects nothing and needs no mask. */
const absent = log.caught('a path to protect is not there (or unresolvable); nothing to mask', null);

/*
 * The one list of what agent code and agent verbs may not change or read in a workspace, and the one function that
 * says whether and why. The verbs refuse by it (write-file, edit-file, notebook verbs: E_PROTECTED; read-file and
 * list-files), the sandbox mounts by it (read-only or masked, existing or not), and the apply of a run's staged
 * writes refuses by it. Paths are workspace-relative, POSIX-separated.
 *
 * Protected (no agent write):
 * - `.kiln/**`: the project config; it names programs (jupyter.command), models and keys, the sandbox's network.
 * - `.git/**` and a `.git` file, at any depth: a repository's config names programs git runs (filters, hooks,
 *   fsmonitor), and Kiln runs git in trusted folders; a submodule's `.git` folder is read by the same `git status`.
 * - the audit log (`scripts/**`): its step files are what ran; only Kiln's own run verbs write them.
 * - Kiln's data folder and user config, wherever they sit (the trust list, the user config, history, run staging).
 * - where the workspace is or holds a home folder: that home's hidden entries (below).
 * Not protected: `pyrightconfig.json` and `pyproject.toml`, which the language server reads. Kiln gives pyright the
 * interpreter itself, and what those files can set (venvPath, extraPaths) only changes which sources pyright
 * reads for its analysis: no program is named there, so nothing an agent writes there runs later.
 *
 * Masked (no agent read, hidden in the sandbox): where the workspace is or holds a home folder ($HOME, or any home
 * /etc/passwd lists), every hidden entry at that home's top level (`~/.ssh`, `~/.cache/huggingface/token`,
 * `~/.jupyter`, `~/.local/share/jupyter/runtime`, `~/.gitconfig`, cloud CLIs' folders, and any other such entry
 * Kiln has never heard of), and Kiln's data folder. Masked paths are protected too.
 */

/** The workspace's own protected folders (workspace-relative), other than the audit log. */
export const PROTECTED_FOLDERS = ['.kiln', '.git'] as const;

export interface ProtectedPathsOptions {
  /** The workspace root, realpath'd. */
  root: string;
  /** The audit log folder, workspace-relative (default `scripts`). */
  scriptsDir?: string;
  /** Kiln's private folders and files (its data folder, the user config), absolute. */
  privatePaths?: readonly string[];
  /** Home folders whose hidden entries are masked when the workspace shows them (default: $HOME and /etc/passwd's). */
  homes?: readonly string[];
  /** Whether names match without case here (default: probed on the workspace). */
  caseInsensitive?: boolean;
}

export interface Refusal {
  path: string;
  why: string;
}

/** The facts one workspace's protected paths are judged by, found once (realpaths, case sensitivity). */
export class ProtectedPaths {
  private constructor(
    readonly root: string,
    private readonly scriptsDir: string,
    /** Private paths inside the workspace, workspace-relative ('' is the root itself). */
    private readonly privateRels: string[],
    /** Homes the workspace shows, workspace-relative ('' when the workspace is the home). */
    private readonly homeRels: string[],
    private readonly caseInsensitive: boolean,
  ) {}

  static async create(options: ProtectedPathsOptions): Promise<ProtectedPaths> {
    const root = options.root;
    const homes = options.homes ?? (await defaultHomes());
    const inside = async (candidates: readonly string[]): Promise<string[]> => {
      const rels = new Set<string>();
      for (const candidate of candidates) {
        // Both the path as given and its realpath: a link to the data folder hides nothing.
        for (const abs of [path.resolve(candidate), await fs.realpath(candidate).catch(absent)]) {
          if (!abs) continue;
          const rel = path.relative(root, abs);
          if (rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel))) rels.add(rel.split(path.sep).join('/'));
        }
      }
      return [...rels];
    };
    const caseInsensitive = options.caseInsensitive ?? (await probeCaseInsensitive(root));
    const fold = (rel: string) => (caseInsensitive ? rel.toLowerCase() : rel);
    return new ProtectedPaths(
      root,
      fold(normalizeRel(options.scriptsDir ?? 'scripts') || 'scripts'),
      (await inside(options.privatePaths ?? [])).map(fold),
      (await inside(homes)).map(fold),
      caseInsensitive,
    );
  }

  /** Workspace-relative roots the sandbox binds read-only whether or not they exist (the audit log, .kiln, .git). */
  get readOnlyRoots(): string[] {
    return [this.scriptsDir, ...PROTECTED_FOLDERS];
  }

  /** Why agent code or an agent verb may not write `rel`, or null. Everything masked is protected too. */
  writeRefusal(rel: string): string | null {
    const segments = this.segments(rel);
    const masked = this.maskedWhy(segments);
    if (masked) return masked;
    if (segments[0] === '.kiln') return "it is the project's Kiln config (.kiln/), which names what Kiln runs";
    const git = segments.indexOf('.git');
    if (git !== -1) return 'it is part of a git repository (.git), whose config names programs git runs';
    if (startsWith(segments, this.scriptsDir.split('/')))
      return `it is in the audit log (${this.scriptsDir}/), which only run-file and execute-code write`;
    return null;
  }

  /** Why agent code or an agent verb may not read `rel` (the sandbox masks it), or null. */
  readRefusal(rel: string): string | null {
    return this.maskedWhy(this.segments(rel));
  }

  /** The workspace-relative entries the sandbox masks that exist now (hidden entries of the homes shown, private paths). */
  async maskedEntries(): Promise<string[]> {
    const found = new Set<string>();
    for (const rel of this.privateRels) {
      if (rel !== '' && (await fs.lstat(path.join(this.root, rel)).catch(absent))) found.add(rel);
    }
    for (const home of this.homeRels) {
      const names = await fs
        .readdir(path.join(this.root, home))
        .catch(log.caught('a home inside the workspace is gone or unreadable; nothing in it to mask', [] as string[]));
      for (const name of names) if (isHiddenName(name)) found.add(home ? `${home}/${name}` : name);
    }
    return [...found];
  }

  private maskedWhy(segments: string[]): string | null {
    for (const rel of this.privateRels) {
      if (startsWith(segments, rel ? rel.split('/') : [])) return "it is Kiln's own data (trust list, user config)";
    }
    for (const home of this.homeRels) {
      const homeSegments = home ? home.split('/') : [];
      const first = segments[homeSegments.length];
      if (first !== undefined && startsWith(segments, homeSegments) && isHiddenName(first))
        return "it is a hidden entry of a home folder (keys, tokens, tool configs), which agents don't see";
    }
    return null;
  }

  private segments(rel: string): string[] {
    const normalized = normalizeRel(rel);
    const folded = this.caseInsensitive ? normalized.toLowerCase() : normalized;
    return folded ? folded.split('/') : [];
  }
}

/** `./a//b/` → `a/b`; backslashes as separators; `.` segments dropped (the workspace guard already refused `..`). */
export function normalizeRel(rel: string): string {
  return rel
    .replace(/\\/g, '/')
    .split('/')
    .filter((segment) => segment !== '' && segment !== '.')
    .join('/');
}

/** A dot-entry (`.ssh`), not `.` or `..`. */
export function isHiddenName(name: string): boolean {
  return name.startsWith('.') && name !== '.' && name !== '..';
}

function startsWith(segments: string[], prefix: string[]): boolean {
  return prefix.length <= segments.length && prefix.every((segment, i) => segments[i] === segment);
}

/** The operator's home ($HOME as the environment says, os.homedir()) and every home /etc/passwd lists. */
export async function defaultHomes(env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  const text = await fs
    .readFile('/etc/passwd', 'utf8')
    .catch(log.caught('no /etc/passwd here; only $HOME and os.homedir() count as homes', ''));
  const listed = text
    .split('\n')
    .map((line) => line.split(':')[5])
    .filter((home): home is string => !!home && path.isAbsolute(home) && home !== '/');
  return [...new Set([env.HOME, os.homedir(), ...listed].filter((home): home is string => !!home))];
}

/**
 * Whether the workspace's filesystem matches names without case (macOS, Windows by default): the root's own name
 * with its case swapped names the same folder. Without letters to swap, the platform's default.
 */
async function probeCaseInsensitive(root: string): Promise<boolean> {
  const base = path.basename(root);
  const swapped = [...base].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');
  if (swapped === base) return process.platform === 'darwin' || process.platform === 'win32';
  const [a, b] = await Promise.all([
    fs.stat(root),
    fs
      .stat(path.join(path.dirname(root), swapped))
      .catch(log.caught('no swapped-case twin of the root: a case-sensitive filesystem', null)),
  ]);
  return b !== null && a.ino === b.ino && a.dev === b.dev;
}

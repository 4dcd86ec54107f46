import { execFile } from 'node:child_process';
import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { GitStatus, GutterChange } from '../../shared/contract';
import { KilnError } from '../../shared/errors';
import { Emitter, type Event } from '../../shared/base/event';
import type { IDisposable } from '../../shared/base/lifecycle';
import { logListenerError } from '../events';
import { findExecutable } from '../process';
import type { GutterSource } from '../gutter';
import { readGitOutputViaFile } from './blob-file';
import { gutterChanges } from './gutter-diff';
import { parsePorcelainV2 } from './porcelain';
import { createLogger } from '../log';

const log = createLogger('git');

export interface GitServiceOptions {
  root: string;
  /** git's path; by default `git` on PATH, and null means no git (no decorations, no errors). */
  gitPath?: string | null;
  /**
   * Whether the workspace is trusted. A repository's own config can name programs git runs (filters,
   * fsmonitor), so an untrusted workspace gets no git at all, as in VS Code's restricted mode.
   */
  trusted?: () => boolean;
  /** Trust was granted or revoked: git's marks appear or go with the decision. */
  onDidChangeTrust?: Event<unknown>;
}

/** Changes arriving this close together cause one `git status`, not one each. */
const REFRESH_DELAY_MS = 150;
/** Files larger than this get no change gutter. */
const MAX_GUTTER_BYTES = 4 * 1024 * 1024;
// The repository's own config must not start programs behind the operator's back: fsmonitor hooks are off.
const SAFE_CONFIG = ['-c', 'core.fsmonitor=false', '-c', 'core.quotePath=false'];
const gitEnv = () => ({ ...process.env, GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0' });
const NONE: GitStatus = { available: false, branch: null, head: null, files: {} };
/** Paths the operator names are paths, never patterns (a notebook may be called `run[1].ipynb`). */
const LITERAL = '--literal-pathspecs';

/** One version of a conflicted path in git's index: 1 the common base, 2 ours (HEAD), 3 theirs. */
export interface IndexStage {
  stage: 1 | 2 | 3;
  /** The blob's id: what names this version. */
  blob: string;
}

/**
 * The workspace's git state, as VS Code shows it: one batch `git status --porcelain=v2` per burst of
 * changes (never a process per file), the branch, and the change gutter against HEAD.
 */
export class GitService implements GutterSource {
  private readonly git: Promise<string | null>;
  private repo: { top: string; gitDir: string } | null = null;
  private current: GitStatus = NONE;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private gitDirWatch: FSWatcher | null = null;
  /** HEAD's text per path, read once per HEAD commit. */
  private readonly committed = new Map<string, Promise<string | null>>();
  private committedAt: string | null = null;
  private disposed = false;
  private readonly changeEmitter = new Emitter<GitStatus>({ onListenerError: logListenerError });
  private readonly following: IDisposable | undefined;
  /** The status changed: the branch, HEAD or a file's mark. */
  readonly onDidChange: Event<GitStatus> = this.changeEmitter.event;

  constructor(private readonly options: GitServiceOptions) {
    this.git = Promise.resolve(
      options.gitPath !== undefined ? options.gitPath : findExecutable('git', process.env.PATH),
    );
    this.following = options.onDidChangeTrust?.(() => this.scheduleRefresh());
  }

  /** Finds the repository and reads its status once; without git or a repository it stays quiet. */
  async start(): Promise<void> {
    await this.refresh();
  }

  status(): GitStatus {
    return this.current;
  }

  /** Something in the workspace changed: refresh soon, once for the whole burst. */
  scheduleRefresh(): void {
    if (this.disposed) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.refresh();
    }, REFRESH_DELAY_MS);
  }

  /** Runs `git status` now (or once more after the one running). */
  refresh(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.readStatus().finally(() => {
      this.running = null;
      if (this.again && !this.disposed) {
        this.again = false;
        void this.refresh();
      }
    });
    return this.running;
  }

  async changesFor(relPath: string, text?: string): Promise<GutterChange[]> {
    if (!this.repo || !this.current.available) return [];
    const state = this.stateOf(relPath);
    if (state === 'untracked' || state === 'ignored') return [];
    const committed = await this.committedText(relPath);
    if (committed === null) return [];
    let current = text;
    if (current === undefined) {
      if (!state) return [];
      current = await readFile(path.join(this.options.root, relPath), 'utf8').catch(
        log.caught('a tracked file is gone or unreadable; it gets no change gutter', undefined),
      );
      if (current === undefined) return [];
    }
    if (current.length > MAX_GUTTER_BYTES) return [];
    return gutterChanges(committed, current);
  }

  /**
   * The index stages of a conflicted path (`git ls-files -u`); empty when git holds no conflict for it.
   * E_UNTRUSTED in an untrusted folder, E_NOT_FOUND without git or a repository, as every operator request.
   */
  async conflictStages(relPath: string): Promise<IndexStage[]> {
    await this.requireRepository();
    const out = await this.runOrThrow([LITERAL, 'ls-files', '-u', '-z', '--', relPath]);
    const stages: IndexStage[] = [];
    for (const record of out.split('\0')) {
      // <mode> SP <blob> SP <stage> TAB <path>
      const match = /^\d+ ([0-9a-f]+) ([123])\t/.exec(record);
      if (match) stages.push({ stage: Number(match[2]) as 1 | 2 | 3, blob: match[1] });
    }
    return stages.sort((a, b) => a.stage - b.stage);
  }

  /** The text of one index stage of a path (`git show :N:path`). */
  async stageText(relPath: string, stage: 1 | 2 | 3): Promise<string> {
    await this.requireRepository();
    return this.runOrThrow(['show', '--no-textconv', `:${stage}:./${relPath}`]);
  }

  /** The path's text at HEAD (`git show HEAD:path`); null when HEAD has no such file (new, or no commit yet). */
  async headText(relPath: string): Promise<string | null> {
    await this.requireRepository();
    // With the repository found, git fails here only for a path HEAD lacks or a HEAD not yet committed.
    const git = await this.git;
    if (!git) return null;
    return readGitOutputViaFile({
      git,
      args: [...SAFE_CONFIG, 'show', '--no-textconv', `HEAD:./${relPath}`],
      cwd: this.options.root,
      env: gitEnv(),
      maxBytes: 512 * 1024 * 1024,
    });
  }

  /** Whether HEAD has the path (`git cat-file -e`): reads no content, however big the file. */
  async headHas(relPath: string): Promise<boolean> {
    await this.requireRepository();
    return (await this.run(['cat-file', '-e', `HEAD:./${relPath}`])) !== null;
  }

  /** `git add` of one path, asked for by the operator; the status after it. */
  async stage(relPath: string): Promise<GitStatus> {
    await this.requireRepository();
    await this.runOrThrow([LITERAL, 'add', '--', relPath]);
    await this.refresh();
    return this.current;
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    this.following?.dispose();
    if (this.timer) clearTimeout(this.timer);
    this.gitDirWatch?.close();
    await this.running;
    this.changeEmitter.dispose();
  }

  private stateOf(relPath: string) {
    const files = this.current.files;
    for (let p = relPath; p; p = p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : '') {
      const state = files[p];
      if (state && (p === relPath || state === 'untracked' || state === 'ignored')) return state;
    }
    return undefined;
  }

  private async readStatus(): Promise<void> {
    if (this.disposed || !(await this.git)) return;
    if (this.options.trusted && !this.options.trusted()) {
      this.repo = null;
      this.gitDirWatch?.close();
      this.gitDirWatch = null;
      return this.publish(NONE);
    }
    if (!this.repo) {
      this.repo = await this.findRepository();
      if (!this.repo) return this.publish(NONE);
      this.watchGitDir(this.repo.gitDir);
    }
    const out = await this.run([
      'status',
      '--porcelain=v2',
      '-z',
      '--branch',
      '--untracked-files=normal',
      '--ignored=traditional',
    ]);
    if (out === null) {
      // The repository went away (deleted .git) or git failed: no decorations rather than stale ones.
      this.repo = null;
      this.gitDirWatch?.close();
      this.gitDirWatch = null;
      return this.publish(NONE);
    }
    const parsed = parsePorcelainV2(out, this.repo.top, this.options.root);
    this.publish({ available: true, branch: parsed.branch, head: parsed.head, files: parsed.files });
  }

  private publish(next: GitStatus): void {
    if (this.disposed) return;
    // Only a new HEAD commit (commit, checkout, reset) makes the committed texts read before stale.
    if (next.head !== this.committedAt) {
      this.committed.clear();
      this.committedAt = next.head;
    }
    const same =
      next.available === this.current.available &&
      next.branch === this.current.branch &&
      next.head === this.current.head;
    if (same && sameFiles(next.files, this.current.files)) return;
    this.current = next;
    this.changeEmitter.fire(next);
  }

  private async findRepository(): Promise<{ top: string; gitDir: string } | null> {
    const out = await this.run(['rev-parse', '--show-toplevel', '--absolute-git-dir']);
    if (!out) return null;
    const [top, gitDir] = out.trim().split('\n');
    return top && gitDir ? { top: path.resolve(top), gitDir: path.resolve(gitDir) } : null;
  }

  /** Commits, checkouts and staging change .git, which the workspace watcher leaves out: watch its top folder. */
  private watchGitDir(gitDir: string): void {
    try {
      this.gitDirWatch = watch(gitDir, (_event, name) => {
        if (
          name === 'index' ||
          name === 'HEAD' ||
          name === 'ORIG_HEAD' ||
          name === 'packed-refs' ||
          name === 'MERGE_HEAD'
        )
          this.scheduleRefresh();
      });
      this.gitDirWatch.on(
        'error',
        log.caught('the watch of .git failed; commits made outside Kiln show at the next change', undefined),
      );
    } catch (err) {
      log.caught(
        '.git could not be watched (no watches left); commits made outside Kiln show at the next change',
        undefined,
        'warn',
      )(err);
      this.gitDirWatch = null;
    }
  }

  private committedText(relPath: string): Promise<string | null> {
    let text = this.committed.get(relPath);
    if (!text) {
      text = this.run(['show', `HEAD:./${relPath}`], 64 * 1024 * 1024).then((out) =>
        out === null || out.includes('\0') ? null : out,
      );
      this.committed.set(relPath, text);
    }
    return text;
  }

  /** git for an operator's request, or why not: untrusted (E_UNTRUSTED), no git or no repository (E_NOT_FOUND). */
  private async requireRepository(): Promise<void> {
    if (!(await this.git)) throw new KilnError('E_NOT_FOUND', 'git is not installed (no `git` on PATH)');
    if (this.options.trusted && !this.options.trusted())
      throw new KilnError('E_UNTRUSTED', 'git runs only in a trusted folder: trust this folder to use git');
    // Found here too for a request that comes before the first status (whose refresh then watches .git).
    if (!this.repo && !(await this.findRepository()))
      throw new KilnError('E_NOT_FOUND', 'This folder is not in a git repository');
  }

  /** Runs git in the workspace; null when it fails (not a repository, no HEAD yet, no such path). */
  private async run(args: string[], maxBuffer = 512 * 1024 * 1024): Promise<string | null> {
    const result = await this.exec(args, maxBuffer);
    return result.ok ? result.stdout : null;
  }

  /** Runs git for an operator's request: a failure is an error with git's own words. */
  private async runOrThrow(args: string[]): Promise<string> {
    const result = await this.exec(args, 512 * 1024 * 1024);
    if (result.ok) return result.stdout;
    const said = result.stderr.trim().split('\n').slice(-3).join(' ') || 'no message';
    throw new KilnError('E_INTERNAL', `git ${args.filter((a) => a !== LITERAL)[0]} failed: ${said}`);
  }

  private async exec(args: string[], maxBuffer: number): Promise<{ ok: boolean; stdout: string; stderr: string }> {
    const git = await this.git;
    if (!git) return { ok: false, stdout: '', stderr: 'git is not installed' };
    return new Promise((resolve) => {
      execFile(
        git,
        [...SAFE_CONFIG, ...args],
        {
          cwd: this.options.root,
          maxBuffer,
          encoding: 'utf8',
          env: gitEnv(),
        },
        (err, stdout, stderr) => resolve({ ok: !err, stdout, stderr }),
      );
    });
  }
}

function sameFiles(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => a[k] === b[k]);
}

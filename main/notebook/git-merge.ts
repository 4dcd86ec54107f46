import type { FileContent, GitOpenChanges, GitStatus, NotebookMergeResult, WriteResult } from '../../shared/contract';
import { isKilnError, KilnError } from '../../shared/errors';
import type { MergeResolution } from '../../shared/notebook-diff';
import type { HandlersFor } from '../router';
import type { GitService } from '../git';
import { hasConflictMarkers } from './format';
import { mergeNotebookTexts, resolveNotebookMerge, type NotebookMergeTexts } from './merge';

/*
 * Notebooks git left in conflict, and "Open Changes": the versions come from git (index stages, HEAD), the file
 * is read and written through the workspace (its path guard, local history, the change feed), and staging is a
 * request of its own, made only when the operator says so.
 */

/** The part of the Workspace service this needs. */
export interface GitFiles {
  resolve(rel: string): Promise<string>;
  relative(abs: string): string;
  read(rel: string): Promise<FileContent>;
  write(rel: string, text: string, options: { origin: 'operator'; expectedHash: string }): Promise<WriteResult>;
}

export interface NotebookMergeServiceOptions {
  git: GitService;
  files: GitFiles;
}

export interface SaveMergeArgs {
  fileHash: string;
  versions: string;
  resolutions: Record<string, MergeResolution>;
}

export class NotebookMergeService {
  constructor(private readonly options: NotebookMergeServiceOptions) {}

  /** The three-way merge of a conflicted notebook. */
  async merge(path: string): Promise<NotebookMergeResult> {
    const rel = await this.guarded(path);
    const file = await this.readText(rel);
    const { texts, versions } = await this.versionsOf(rel);
    return {
      path: rel,
      fileHash: file.hash,
      versions,
      addedOnBothSides: texts.base === null,
      merge: mergeNotebookTexts(texts),
    };
  }

  /** Writes the resolved notebook over the conflicted file (never stages it). */
  async save(path: string, args: SaveMergeArgs): Promise<WriteResult> {
    const rel = await this.guarded(path);
    const { texts, versions } = await this.versionsOf(rel);
    if (versions !== args.versions)
      throw new KilnError(
        'E_BAD_REQUEST',
        `git's versions of ${rel} changed since the merge was shown: review the merge again`,
      );
    const text = resolveNotebookMerge(texts, args.resolutions);
    return this.options.files.write(rel, text, { origin: 'operator', expectedHash: args.fileHash });
  }

  /** `git add` of the file; a notebook that still holds conflict markers is refused. */
  async stage(path: string): Promise<GitStatus> {
    const rel = await this.guarded(path);
    if (rel.toLowerCase().endsWith('.ipynb')) {
      const file = await this.options.files.read(rel);
      if (file.text !== null && hasConflictMarkers(file.text))
        throw new KilnError(
          'E_NOTEBOOK_CONFLICT',
          `${rel} still holds git conflict markers: resolve and save it before staging`,
          { path: rel },
        );
    }
    return this.options.git.stage(rel);
  }

  /**
   * The working file and its version at HEAD. `texts` false (a notebook, compared in main by `notebook.diff`):
   * only whether HEAD has the file, with neither version read (20 MB each for a big notebook, read again by the
   * compare itself).
   */
  async openChanges(path: string, texts = true): Promise<GitOpenChanges> {
    const rel = await this.guarded(path);
    if (!texts) {
      const inHead = await this.options.git.headHas(rel);
      return { path: rel, head: null, working: null, workingHash: null, inHead };
    }
    const head = await this.options.git.headText(rel);
    const file = await this.options.files.read(rel).catch((err: unknown) => {
      // A file deleted in the working tree: its change is the whole HEAD version going.
      if (isKilnError(err, 'E_NOT_FOUND')) return null;
      throw err;
    });
    return {
      path: rel,
      head: head !== null && !head.includes('\0') ? head : null,
      working: file && !file.truncated ? file.text : null,
      workingHash: file ? file.hash : null,
      inHead: head !== null,
    };
  }

  /** The file's text at HEAD, null when HEAD has none (a notebook compare's HEAD side). */
  async headText(path: string): Promise<string | null> {
    return this.options.git.headText(await this.guarded(path));
  }

  /** The path through the workspace's guard, in its canonical form (what git is given). */
  private async guarded(path: string): Promise<string> {
    const { files } = this.options;
    return files.relative(await files.resolve(path));
  }

  private async readText(rel: string): Promise<FileContent & { text: string }> {
    const file = await this.options.files.read(rel);
    if (file.truncated) throw new KilnError('E_TOO_LARGE', `${rel} is too large to merge here (${file.size} bytes)`);
    if (file.text === null)
      throw new KilnError('E_INVALID_NOTEBOOK', `${rel} is binary, not a notebook`, { reason: 'binary' });
    return file as FileContent & { text: string };
  }

  /** git's three versions of the path, and the name of that set (its blob ids). */
  private async versionsOf(rel: string): Promise<{ texts: NotebookMergeTexts; versions: string }> {
    const { git } = this.options;
    const stages = await git.conflictStages(rel);
    if (stages.length === 0)
      throw new KilnError('E_NOT_FOUND', `git holds no merge conflict for ${rel}`, { path: rel });
    const has = (stage: 1 | 2 | 3) => stages.some((s) => s.stage === stage);
    if (!has(2) || !has(3))
      throw new KilnError(
        'E_BAD_REQUEST',
        `${rel} was deleted on ${has(2) ? 'their' : 'our'} side of the merge: keep or delete the file (git add or git rm)`,
      );
    const [base, ours, theirs] = await Promise.all([
      has(1) ? git.stageText(rel, 1) : null,
      git.stageText(rel, 2),
      git.stageText(rel, 3),
    ]);
    return { texts: { base, ours, theirs }, versions: stages.map((s) => `${s.stage}:${s.blob}`).join(' ') };
  }
}

/** The git channels that work on notebooks (git.status stays with git's own handlers). */
export function notebookMergeHandlers(
  merges: NotebookMergeService,
): HandlersFor<'git.notebookMerge' | 'git.saveNotebookMerge' | 'git.stage' | 'git.openChanges'> {
  return {
    'git.notebookMerge': ({ path }) => merges.merge(path),
    'git.saveNotebookMerge': ({ path, ...args }) => merges.save(path, args),
    'git.stage': ({ path }) => merges.stage(path),
    'git.openChanges': ({ path, texts }) => merges.openChanges(path, texts),
  };
}

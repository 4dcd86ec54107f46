import fuzzysort from 'fuzzysort';
import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { Emitter, type Event } from '../../shared/base/event';
import type { FsChange, QuickOpenMatch, QuickOpenResult } from '../../shared/contract';
import { createdPaths } from '../../shared/fs-change';
import { logListenerError } from '../events';

export interface FileIndexOptions {
  root: string;
  /** The watcher's excludes: a workspace-relative path that is true here is neither listed nor watched. */
  excluded: (relPath: string) => boolean;
  /** The same for an entry whose folders are known not to be excluded (its own path and name only). */
  excludedEntry: (relPath: string, name: string) => boolean;
}

export interface SearchOptions {
  /** Recently opened files, most recent first; their matches come before the rest. */
  recent?: readonly string[];
  limit?: number;
}

/**
 * Every file of the workspace by relative path, for Quick Open. Built by one background scan that starts
 * on first use (a million-file workspace starts without walking or holding its paths), then kept current
 * from the change feed, never by rescanning.
 */
export class FileIndex {
  /** Relative path → the matcher's prepared form (prepared once, not per query). */
  private readonly files = new Map<string, Fuzzysort.Prepared>();
  private list: Fuzzysort.Prepared[] | null = null;
  private firstScan: Promise<void> | null = null;
  private scanning = true;
  private disposed = false;
  private readonly indexedEmitter = new Emitter<{ files: number }>({ onListenerError: logListenerError });
  /** The first scan finished, with this many files. */
  readonly onDidIndex: Event<{ files: number }> = this.indexedEmitter.event;

  constructor(private readonly options: FileIndexOptions) {}

  /** Starts the first scan if nothing asked before; resolves when it is done. */
  get ready(): Promise<void> {
    this.firstScan ??= this.scan('').finally(() => {
      this.scanning = false;
      if (!this.disposed) this.indexedEmitter.fire({ files: this.files.size });
    });
    return this.firstScan;
  }

  get size(): number {
    return this.files.size;
  }

  get indexing(): boolean {
    return this.scanning;
  }

  has(relPath: string): boolean {
    return this.files.has(relPath);
  }

  /** Fuzzy-matches the query against every path: letters in order, word starts and separators score higher. */
  search(query: string, options: SearchOptions = {}): QuickOpenResult {
    void this.ready;
    const limit = options.limit ?? 100;
    const recent = (options.recent ?? []).filter((p) => this.files.has(p));
    const recentSet = new Set(recent);
    const needle = query.replace(/\s+/g, '');
    if (!needle) {
      // Nothing typed: what the operator opened last, then the rest in path order.
      const matches: QuickOpenMatch[] = recent.slice(0, limit).map((p) => ({ path: p, positions: [], recent: true }));
      for (const p of this.files.keys()) {
        if (matches.length >= limit) break;
        if (!recentSet.has(p)) matches.push({ path: p, positions: [], recent: false });
      }
      return { matches, total: this.files.size, indexing: this.scanning };
    }
    const fromRecent = fuzzysort.go(
      needle,
      recent.map((p) => this.files.get(p)!),
      { limit },
    );
    const fromAll = fuzzysort.go(needle, this.prepared(), { limit: limit + fromRecent.length });
    const matches: QuickOpenMatch[] = fromRecent.map((r) => ({
      path: r.target,
      positions: [...r.indexes],
      recent: true,
    }));
    for (const r of fromAll) {
      if (matches.length >= limit) break;
      if (!recentSet.has(r.target)) matches.push({ path: r.target, positions: [...r.indexes], recent: false });
    }
    return { matches, total: fromAll.total, indexing: this.scanning };
  }

  /** Follows the change feed: one event, one update; a folder that appears is scanned once for what it holds. */
  applyChange(change: FsChange): void {
    // Before the first scan there is nothing to keep current: the scan will see the disk as it is then.
    if (!this.firstScan) return;
    if (change.type === 'moved') {
      if (change.isDir) this.moveUnder(change.from, change.to);
      else {
        this.remove(change.from);
        if (!this.options.excluded(change.to)) this.add(change.to);
      }
      return;
    }
    if (change.type === 'createdFiles') {
      for (const rel of createdPaths(change)) if (!this.options.excluded(rel)) this.add(rel);
      return;
    }
    if (this.options.excluded(change.path)) return;
    if (change.type === 'deleted') {
      if (change.isDir) this.removeUnder(change.path);
      else this.remove(change.path);
    } else if (change.isDir) {
      if (change.type === 'created') void this.scan(change.path);
    } else this.add(change.path);
  }

  dispose(): void {
    this.disposed = true;
    this.indexedEmitter.dispose();
    this.files.clear();
    this.list = null;
  }

  private prepared(): Fuzzysort.Prepared[] {
    this.list ??= [...this.files.values()];
    return this.list;
  }

  private add(relPath: string): void {
    if (this.disposed || this.files.has(relPath)) return;
    this.files.set(relPath, fuzzysort.prepare(relPath));
    this.list = null;
  }

  private remove(relPath: string): void {
    if (this.files.delete(relPath)) this.list = null;
  }

  private removeUnder(dir: string): void {
    const prefix = `${dir}/`;
    for (const p of this.files.keys()) if (p.startsWith(prefix)) this.files.delete(p);
    this.remove(dir);
    this.list = null;
  }

  private moveUnder(from: string, to: string): void {
    const prefix = `${from}/`;
    for (const p of [...this.files.keys()]) {
      if (!p.startsWith(prefix)) continue;
      this.files.delete(p);
      const moved = to + p.slice(from.length);
      if (!this.options.excluded(moved)) this.add(moved);
    }
    this.list = null;
  }

  /** Walks a folder (one not excluded) breadth-first, never into an excluded one; symlinks are entries, never followed. */
  private async scan(start: string): Promise<void> {
    const queue = [start];
    while (queue.length && !this.disposed) {
      const dir = queue.shift()!;
      let entries: Dirent[];
      try {
        entries = await readdir(path.join(this.options.root, dir), { withFileTypes: true });
      } catch {
        continue;
      }
      for (const entry of entries) {
        const rel = dir ? `${dir}/${entry.name}` : entry.name;
        if (this.options.excludedEntry(rel, entry.name)) continue;
        if (entry.isDirectory()) queue.push(rel);
        else this.add(rel);
      }
    }
  }
}

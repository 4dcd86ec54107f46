import type { OpenFilesStore } from '../editor';

const KEEP = 200;

/** The files the operator opened, most recent first; Quick Open lists them first. */
export class RecentFiles {
  private paths: string[] = [];
  private readonly unsubscribe: () => void;

  constructor(openFiles: OpenFilesStore) {
    let last: string | null = null;
    this.unsubscribe = openFiles.subscribe(() => {
      const active = openFiles.getState().active;
      if (active && active !== last) this.touch(active);
      last = active;
    });
  }

  /** Most recent first. */
  list(): string[] {
    return this.paths;
  }

  touch(path: string): void {
    this.paths = [path, ...this.paths.filter((p) => p !== path)].slice(0, KEEP);
  }

  dispose(): void {
    this.unsubscribe();
  }
}

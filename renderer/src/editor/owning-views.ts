/**
 * Which tabs show a view that keeps its document itself (a notebook's cells come from main's notebook
 * service): they skip reading the file's text, which for a 20 MB notebook was a second 20 MB read and
 * transfer racing the notebook's own open. Its own file, so open-files needs no view imports.
 */
const owning: { id: string; matches: (path: string) => boolean }[] = [];

export function registerOwningView(id: string, matches: (path: string) => boolean): void {
  owning.push({ id, matches });
}

/** Whether a tab on `path` asking for `view` (null: the default for its path) shows an owning view. */
export function showsOwningView(path: string, view: string | null): boolean {
  return view === null ? owning.some((o) => o.matches(path)) : owning.some((o) => o.id === view);
}

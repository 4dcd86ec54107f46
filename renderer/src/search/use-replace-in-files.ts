import type { SearchFileResult } from '../../../shared/contract';
import { errorText, useStore } from '../base';
import { useAsk, useToasts } from '../ui';
import { useReplaceStore, type ReplaceSummary } from './replace-store';
import { useSearchStore } from './search-store';

const plural = (n: number, one: string) => `${n.toLocaleString()} ${one}${n === 1 ? '' : 's'}`;

/** Replace All (asked first, as VS Code asks), per file and per match; what happened is told in a toast. */
export function useReplaceInFiles() {
  const store = useReplaceStore();
  const state = useStore(store);
  const search = useSearchStore();
  const ask = useAsk();
  const toasts = useToasts();

  const tell = (summary: ReplaceSummary) => {
    const done = summary.files.filter((f) => f.status !== 'refused');
    const refused = summary.files.filter((f) => f.status === 'refused');
    const count = done.reduce((n, f) => n + f.replaced, 0);
    if (done.length) {
      const unsaved = done.filter((f) => f.status !== 'written').length;
      const replaceId = summary.replaceId;
      toasts.show({
        kind: 'info',
        message:
          `Replaced ${plural(count, 'occurrence')} in ${plural(done.length, 'file')}.` +
          (unsaved
            ? ` ${plural(unsaved, 'open file')} with unsaved changes took the replacement unsaved (undo it in the tab).`
            : '') +
          (replaceId ? ' Undo Replace puts the files back; the Timeline keeps each previous version.' : ''),
        actions: replaceId
          ? [
              {
                label: 'Undo Replace',
                run: () =>
                  void store.undo(replaceId).then(
                    (files) => {
                      const failed = files.filter((f) => f.status === 'refused');
                      if (failed.length) toasts.error(failed.map((f) => f.message).join('\n'));
                      void search.search({});
                    },
                    (err: unknown) => toasts.error(errorText(err)),
                  ),
              },
            ]
          : undefined,
        timeoutMs: 15_000,
      });
    }
    if (refused.length) toasts.error(refused.map((f) => f.message ?? `${f.path} was not replaced`).join('\n'));
  };

  /** One file's matches, or one match (`matchIndex`): no question asked, as in VS Code. */
  const replaceIn = async (file: SearchFileResult, matchIndex?: number) => {
    const summary = await store.replace(search.getState().query, [file]);
    tell(summary);
    if (!summary.files.some((f) => f.status !== 'refused')) return;
    // One match replaced moves the others on its line: the file is searched again. A whole file leaves the list.
    if (matchIndex === undefined) search.dismiss(file.path);
    else void search.search({});
  };

  const replaceAll = async (files: SearchFileResult[]) => {
    const { replacement } = store.getState();
    const count = files.reduce((n, f) => n + f.matches.length, 0);
    const answer = await ask({
      title: 'Replace All',
      message:
        `Replace ${plural(count, 'occurrence')} across ${plural(files.length, 'file')}` +
        (replacement ? ` with '${replacement}'?` : '?'),
      buttons: [
        { label: 'Replace', value: 'replace', primary: true },
        { label: 'Cancel', value: 'cancel' },
      ],
      cancelValue: 'cancel',
    });
    if (answer !== 'replace') return;
    const summary = await store.replace(search.getState().query, files);
    tell(summary);
    for (const f of summary.files) if (f.status !== 'refused') search.dismiss(f.path);
  };

  return { store, state, replaceIn, replaceAll };
}

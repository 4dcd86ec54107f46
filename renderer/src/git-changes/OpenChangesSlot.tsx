import { nameOf } from '../../../shared/paths';
import { useEffect, useMemo, useState } from 'react';
import { errorText, useBridge, useStore } from '../base';
import { useCommands } from '../commands';
import { DiffView, SideBySideToggle, useDiffSideBySide, useOpenFile, useTextModels } from '../editor';
import { NotebookCompareOrText } from '../notebook-diff';
import { DiffIcon, XIcon, useToasts } from '../ui';
import { openChanges } from './menu-items';
import { useOpenChangesStore } from './open-changes-store';
import './git-changes.css';

/**
 * A notebook's changes as text, when it cannot be compared as cells: its two texts are asked for only now (the
 * cell compare reads HEAD in main, so a big notebook's texts do not cross the socket for nothing).
 */
function NotebookTextChanges({ path, sideBySide }: { path: string; sideBySide: boolean }) {
  const bridge = useBridge();
  const [texts, setTexts] = useState<{ head: string | null; working: string | null } | { error: string } | null>(null);
  useEffect(() => {
    let current = true;
    bridge.request('git.openChanges', { path }).then(
      (changes) => current && setTexts(changes),
      (err: unknown) => current && setTexts({ error: errorText(err) }),
    );
    return () => {
      current = false;
    };
  }, [bridge, path]);
  if (!texts) return <div className="nbd-loading">Reading the texts…</div>;
  if ('error' in texts) return <div className="open-changes-notice">{texts.error}</div>;
  const name = nameOf(path);
  return (
    <DiffView
      path={path}
      original={texts.head ?? ''}
      modified={texts.working ?? ''}
      sideBySide={sideBySide}
      originalLabel={`${name} at HEAD`}
      modifiedLabel={`${name} in the working tree`}
    />
  );
}

/**
 * The centre's view of "Open Changes": the active file at git HEAD ↔ the working tree, cell by cell for a
 * notebook (its unsaved edits included) and Monaco's text diff for any other file. It also registers the
 * palette's "Open Changes" for the active file and says, as a toast, why one could not open.
 */
export function OpenChangesSlot({ path }: { path: string | null | undefined }) {
  const bridge = useBridge();
  const store = useOpenChangesStore();
  const state = useStore(store);
  const toasts = useToasts();
  const sideBySide = useDiffSideBySide();
  const shown = Boolean(path) && state.path === path;
  // A notebook's compare reads its unsaved cells itself (main's open notebook).
  const unsaved = useUnsavedText(shown && !path!.toLowerCase().endsWith('.ipynb') ? path! : null);

  useCommands([
    {
      id: 'git.openChanges',
      title: 'Open Changes',
      category: 'Git',
      when: () => Boolean(path),
      run: () => (path ? openChanges(bridge, path) : undefined),
    },
  ]);

  useEffect(() => {
    if (!state.error) return;
    toasts.error(state.error);
    store.errorShown();
  }, [state.error, store, toasts]);

  useEffect(() => {
    if (!shown) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape' && !event.defaultPrevented) store.close();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [shown, store]);

  if (!path || !shown) return null;
  const name = nameOf(path);
  const isNew = !state.inHead;
  const asNotebook = path.toLowerCase().endsWith('.ipynb');
  // As VS Code's: the working side is what the operator sees in the editor, unsaved edits included.
  const working = unsaved ?? state.working ?? '';
  const textDiff = (
    <DiffView
      path={path}
      original={state.head ?? ''}
      modified={working}
      sideBySide={sideBySide}
      originalLabel={`${name} at HEAD`}
      modifiedLabel={unsaved === null ? `${name} in the working tree` : `${name} with unsaved edits`}
    />
  );
  const unchanged = !asNotebook && state.inHead && state.head !== null && state.head === working;
  return (
    <section className="open-changes" aria-label={`Open changes of ${name}`}>
      <div className="compare-header">
        <DiffIcon />
        <span>{name}: HEAD ↔ working tree</span>
        <span className="spacer" />
        <SideBySideToggle />
        <button type="button" className="chat-icon-btn" aria-label="Close changes" onClick={() => store.close()}>
          <XIcon />
        </button>
      </div>
      {isNew && (
        <div className="open-changes-notice" role="note">
          {asNotebook ? 'Not in HEAD: the whole notebook is new' : 'Not in HEAD: the whole file is new'}
        </div>
      )}
      {unchanged && (
        <div className="open-changes-notice" role="note">
          No changes: the file is as at HEAD
        </div>
      )}
      {asNotebook ? (
        <NotebookCompareOrText
          base={{ head: path }}
          next={{ path }}
          sideBySide={sideBySide}
          oldLabel="HEAD"
          newLabel="working tree"
          textDiff={<NotebookTextChanges path={path} sideBySide={sideBySide} />}
          noteClassName="open-changes-notice"
        />
      ) : (
        textDiff
      )}
    </section>
  );
}

/** An open text file's editor text when it differs from its disk text (unsaved edits), else null. */
function useUnsavedText(path: string | null): string | null {
  const file = useOpenFile(path ?? '');
  const textModels = useTextModels();
  return useMemo(() => {
    if (!path || !file || file.binary) return null;
    const text = textModels.modelIfOpen(path)?.getValue() ?? file.buffer;
    return text === file.diskText ? null : text;
    // `file` is a new object on every keystroke handed over and every reload: the text is read again then.
  }, [path, file, textModels]);
}

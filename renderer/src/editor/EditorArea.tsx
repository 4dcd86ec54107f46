import { useEffect, useRef, type DragEvent } from 'react';
import { useAsk, useToasts, CloseIcon, FileIcon, DiffIcon, tabAnchor } from '../ui';
import { errorText, useBridge } from '../base';
import { useTextModels, type TextModels } from './text-models';
import { DiffView } from './DiffView';
import { SaveAs } from './SaveAs';
import { SideBySideToggle, useDiffSideBySide } from './side-by-side';
import { viewFor } from './document-views';
import { editorOverlays } from './overlays';
import { useOpenFiles, useOpenFilesStore, type OpenFile, type OpenFilesStore } from './open-files';
import type { DialogRequest } from '../ui';

type Ask = <V extends string>(request: DialogRequest<V>) => Promise<V>;

/** How long a drag rests on a tab before the tab comes to the front, so passing over tabs flips none. */
const TAB_HOVER_MS = 600;

/**
 * Drags onto a tab whose view takes them (cells onto a notebook's): resting on the tab brings it to the front,
 * to drop into its view; dropping on the tab itself hands the data to that file's view.
 */
function useTabDrop(store: OpenFilesStore, active: string | null) {
  const bridge = useBridge();
  const hover = useRef<ReturnType<typeof setTimeout> | null>(null);
  const cancel = () => {
    if (hover.current !== null) clearTimeout(hover.current);
    hover.current = null;
  };
  useEffect(() => cancel, []);
  return (file: OpenFile) => {
    const tabDrop = viewFor(file).tabDrop;
    const takes = (e: DragEvent) => Boolean(tabDrop?.accepts(e.dataTransfer.types));
    return {
      onDragEnter: (e: DragEvent) => {
        if (!takes(e) || file.path === active) return;
        cancel();
        hover.current = setTimeout(() => store.activate(file.path), TAB_HOVER_MS);
      },
      onDragOver: (e: DragEvent) => {
        if (!takes(e)) return;
        e.preventDefault();
        e.dataTransfer.dropEffect = 'copy';
      },
      onDragLeave: (e: DragEvent) => {
        if (!e.currentTarget.contains(e.relatedTarget as Node | null)) cancel();
      },
      onDrop: (e: DragEvent) => {
        if (!tabDrop || !takes(e)) return;
        e.preventDefault();
        cancel();
        store.activate(file.path);
        tabDrop.drop(file.path, e.dataTransfer, bridge);
      },
    };
  };
}

/** Asks before dropping unsaved changes; resolves true when the tab may close. */
export async function confirmClose(
  file: OpenFile,
  store: OpenFilesStore,
  ask: Ask,
  onError: (m: string) => void,
): Promise<boolean> {
  if (!file.dirty) return true;
  const answer = await ask({
    title: `Save changes to ${file.name}?`,
    message: `${file.name} has unsaved changes. They are lost if you don't save them.`,
    buttons: [
      { label: 'Save', value: 'save', primary: true },
      { label: "Don't Save", value: 'discard', danger: true },
      { label: 'Cancel', value: 'cancel' },
    ],
    cancelValue: 'cancel',
  });
  if (answer === 'cancel') return false;
  if (answer === 'save') {
    try {
      await store.save(file.path);
    } catch (err) {
      onError(errorText(err));
      return false;
    }
  }
  return true;
}

/** The centre: tabs of open files, the changed-on-disk bar, and the view for the active file. */
export function EditorArea() {
  const store = useOpenFilesStore();
  const { files, active, comparing } = useOpenFiles();
  const ask = useAsk();
  const toasts = useToasts();
  const sideBySide = useDiffSideBySide();
  const activeFile = files.find((f) => f.path === active);

  const textModels = useTextModels();
  useEffect(() => textModels.disposeExcept(new Set(files.map((f) => f.path))), [textModels, files]);

  const tabDropHandlers = useTabDrop(store, active);

  const closeTab = async (file: OpenFile) => {
    if (await confirmClose(file, store, ask, (m) => toasts.error(m))) store.close(file.path);
  };

  if (!files.length) {
    return (
      <div className="empty-editor">
        <div className="empty-mark" aria-hidden>
          K
        </div>
        <div>Open a file from the Explorer.</div>
        <div className="empty-hint">
          Go to File <kbd>Ctrl</kbd>+<kbd>P</kbd> · All commands <kbd>Ctrl</kbd>+<kbd>Shift</kbd>+<kbd>P</kbd>
        </div>
        <div className="empty-hint">
          Save <kbd>Ctrl</kbd>+<kbd>S</kbd> · Rename <kbd>F2</kbd> · Undo a move <kbd>Ctrl</kbd>+<kbd>Z</kbd>
        </div>
      </div>
    );
  }

  const View = activeFile ? viewFor(activeFile).component : null;
  const conflict = activeFile?.conflict;
  const showingDiff = activeFile && comparing === activeFile.path && conflict;

  return (
    <div className="editor-area">
      <div className="tabs">
        <div className="tab-list" role="tablist" aria-label="Open files">
          {files.map((file) => (
            <button
              key={file.path}
              type="button"
              role="tab"
              aria-selected={file.path === active}
              aria-label={file.name + (viewFor(file).readOnly ? ' (read-only)' : '')}
              title={file.path + (file.dirty ? ' (unsaved)' : '') + (viewFor(file).readOnly ? ' (read-only)' : '')}
              data-dirty={file.dirty ? 'true' : undefined}
              className={`tab${file.path === active ? ' active' : ''}`}
              style={tabAnchor(`editor-tab-${file.id}`)}
              onClick={() => store.activate(file.path)}
              {...tabDropHandlers(file)}
              onMouseDown={(e) => {
                if (e.button === 1) {
                  e.preventDefault();
                  void closeTab(file);
                }
              }}
            >
              <FileIcon name={file.name} />
              <span className="tab-name">{file.name}</span>
              {viewFor(file).readOnly && (
                <span className="tab-read-only" aria-hidden>
                  read-only
                </span>
              )}
            </button>
          ))}
        </div>
        {/* A tablist holds only tabs: each close button sits after it and is drawn over its tab's end (CSS anchor positioning). */}
        {files.map((file) => (
          <button
            key={file.path}
            type="button"
            className={`tab-close${file.path === active ? ' active' : ''}${file.dirty ? ' dirty' : ''}`}
            style={tabAnchor(`editor-tab-${file.id}`)}
            aria-label={`Close ${file.name}`}
            title="Close"
            onClick={() => void closeTab(file)}
          >
            <span className="dirty-dot" aria-hidden />
            <CloseIcon />
          </button>
        ))}
      </div>
      {activeFile && conflict && (
        <div className="conflict-bar" role="alert" aria-label="Changed on disk">
          <span className="conflict-icon" aria-hidden>
            !
          </span>
          <span className="conflict-text">
            {conflict.kind === 'changed' ? (
              <>
                <strong>{activeFile.name}</strong> changed on disk while you have unsaved changes.
              </>
            ) : activeFile.dirty ? (
              <>
                <strong>{activeFile.name}</strong> was deleted on disk; your unsaved text is still here.
              </>
            ) : (
              <>
                <strong>{activeFile.name}</strong> was deleted on disk. It comes back here if the file does; Save As
                keeps this text.
              </>
            )}
          </span>
          {conflict.kind === 'deleted' && (
            <SaveAs
              key={activeFile.id}
              path={activeFile.path}
              onSave={(to) =>
                saveBufferAs(store, textModels, activeFile.path, to).catch((err: unknown) => {
                  toasts.error(errorText(err));
                  throw err;
                })
              }
            />
          )}
          {conflict.kind === 'changed' && (
            <button
              type="button"
              className="btn btn-small"
              onClick={() => store.showCompare(showingDiff ? null : activeFile.path)}
            >
              {showingDiff ? 'Close Compare' : 'Compare'}
            </button>
          )}
          <button
            type="button"
            className={`btn btn-small${conflict.kind === 'changed' ? ' btn-primary' : ''}`}
            onClick={() =>
              store.overwrite(activeFile.path).then(
                () => store.showCompare(null),
                (err) => toasts.error(errorText(err)),
              )
            }
          >
            {conflict.kind === 'changed' ? 'Overwrite' : 'Save here again'}
          </button>
          <button
            type="button"
            className="btn btn-small"
            onClick={() => {
              store.showCompare(null);
              if (conflict.kind === 'deleted') store.close(activeFile.path);
              else void store.reload(activeFile.path);
            }}
          >
            {conflict.kind === 'deleted' ? 'Close' : 'Reload'}
          </button>
        </div>
      )}
      {/* The overlays (a proposal under review, a Timeline version) render nothing until they have something to
          show; while one does, CSS hides the .document below. */}
      {editorOverlays().map(({ id, component: Overlay }) => (
        <Overlay key={id} path={activeFile?.path} />
      ))}
      <div className="document">
        {showingDiff && conflict.kind === 'changed' ? (
          <div className="compare">
            <div className="compare-header">
              <DiffIcon />
              <span>{activeFile.name}: on disk ↔ your changes</span>
              <span className="spacer" />
              <SideBySideToggle />
            </div>
            <DiffView
              path={activeFile.path}
              original={conflict.diskText}
              modified={activeFile.buffer}
              sideBySide={sideBySide}
              originalLabel={`${activeFile.name} on disk`}
              modifiedLabel={`${activeFile.name} with your changes`}
            />
          </div>
        ) : (
          View && activeFile && <View path={activeFile.path} />
        )}
      </div>
    </div>
  );
}

/** Writes the buffer to a new file and moves the tab (and its Monaco model) there. */
async function saveBufferAs(
  store: OpenFilesStore,
  textModels: TextModels,
  path: string,
  target: string,
): Promise<void> {
  textModels.rename(path, target);
  try {
    await store.saveAs(path, target);
  } catch (err) {
    textModels.rename(target, path);
    throw err;
  }
}

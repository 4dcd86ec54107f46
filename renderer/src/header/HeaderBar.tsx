import { parseDataViewerTab } from '../../../shared/contract';
import { useState } from 'react';
import { KilnError } from '../../../shared/errors';
import { errorText, useBridge } from '../base';
import { useCommands } from '../commands';
import { useOpenFiles, useOpenFilesStore, type OpenFilesStore } from '../editor';
import {
  ChevronDownIcon,
  ContextMenu,
  CopyIcon,
  MinimapIcon,
  SaveIcon,
  copyWorkspacePath,
  usePrefs,
  useToasts,
  type Toasts,
} from '../ui';
import { Breadcrumb } from './Breadcrumb';
import { isLibraryPath } from '../language';

/** Saves the active file, explaining a refusal (changed on disk) instead of overwriting. */
export async function saveActive(store: OpenFilesStore, toasts: Toasts): Promise<void> {
  const file = store.activeFile;
  if (!file) return;
  try {
    await store.save(file.path);
  } catch (err) {
    if (err instanceof KilnError && err.code === 'E_CHANGED_ON_DISK') {
      toasts.error(
        `${file.name} changed on disk since it was opened, so it was not saved. Compare, Overwrite or Reload.`,
      );
    } else toasts.error(errorText(err, `Could not save ${file.name}`));
  }
}

/** Above the editor: the breadcrumb of the open file, Copy Path, the minimap toggle and Save. */
export function HeaderBar({ rootName }: { rootName: string }) {
  const bridge = useBridge();
  const store = useOpenFilesStore();
  const { active, files } = useOpenFiles();
  const toasts = useToasts();
  const { prefs, setPref } = usePrefs();
  const [copyMenu, setCopyMenu] = useState<{ x: number; y: number } | null>(null);
  const file = files.find((f) => f.path === active);
  const minimap = prefs?.minimap ?? true;

  // A library file outside the workspace (a definition's read-only tab) is named by its absolute path already;
  // a data viewer's tab (`<notebook>::data/<name>`) is no folder to walk either.
  const library = file ? isLibraryPath(file.path) || parseDataViewerTab(file.path) !== null : false;
  const copy = async (absolute: boolean) => {
    if (file) await copyWorkspacePath(bridge, toasts, file.path, absolute && !library);
  };

  useCommands([
    {
      id: 'view.toggleMinimap',
      title: minimap ? 'Hide the minimap' : 'Show the minimap',
      category: 'View',
      run: () => setPref('minimap', !minimap),
    },
    {
      id: 'file.copyPath',
      title: 'Copy Path of Active File',
      category: 'File',
      when: () => Boolean(file),
      run: () => copy(false),
    },
    {
      id: 'file.copyAbsolutePath',
      title: 'Copy Absolute Path of Active File',
      category: 'File',
      when: () => Boolean(file),
      run: () => copy(true),
    },
  ]);

  const canSave = Boolean(
    file && file.status === 'ready' && !file.binary && !file.truncated && (file.dirty || file.conflict),
  );

  return (
    <header className="editor-header">
      {library ? (
        <span className="library-path" title={file?.path}>
          {file?.path}
        </span>
      ) : (
        <Breadcrumb path={active} rootName={rootName} onOpenFile={(path) => void store.open(path)} />
      )}
      <span className="spacer" />
      <div className="split-btn">
        <button
          type="button"
          className="hdr-btn"
          disabled={!file}
          title="Copy the workspace-relative path (Shift: absolute)"
          onClick={(e) => void copy(e.shiftKey)}
        >
          <CopyIcon />
          <span>Copy Path</span>
        </button>
        <button
          type="button"
          className="hdr-btn hdr-btn-more"
          disabled={!file}
          aria-label="More copy options"
          aria-haspopup="menu"
          onClick={(e) => {
            const box = (e.currentTarget as HTMLElement).getBoundingClientRect();
            setCopyMenu({ x: box.left, y: box.bottom + 2 });
          }}
        >
          <ChevronDownIcon />
        </button>
      </div>
      <button
        type="button"
        className="hdr-btn"
        aria-pressed={minimap}
        title={minimap ? 'Hide the minimap' : 'Show the minimap'}
        onClick={() => setPref('minimap', !minimap)}
      >
        <MinimapIcon />
        <span>Minimap</span>
      </button>
      <button
        type="button"
        className="hdr-btn hdr-btn-save"
        disabled={!canSave}
        title="Save (Ctrl+S)"
        onClick={() => void saveActive(store, toasts)}
      >
        <SaveIcon />
        <span>Save</span>
      </button>
      {copyMenu && (
        <ContextMenu
          x={copyMenu.x}
          y={copyMenu.y}
          label="Copy options"
          items={[
            { label: 'Copy Path', onSelect: () => void copy(false) },
            { label: 'Copy Absolute Path', onSelect: () => void copy(true) },
          ]}
          onClose={() => setCopyMenu(null)}
        />
      )}
    </header>
  );
}

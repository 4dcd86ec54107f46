import { useCallback, useEffect, useMemo, useState, useSyncExternalStore } from 'react';
import type { FsChange } from '../../../shared/contract';
import { EditorArea, OpenFilesContext, OpenFilesStore } from '../editor';
import { HeaderBar, saveActive } from '../header';
import { Explorer } from '../tree';
import { DialogProvider, PrefsProvider, ToastProvider, isModKey, useToasts } from '../ui';
import { useBridge, useKilnEvent } from './bridge-context';
import { RightRail } from './RightRail';

/** The window: file tree on the left, the editor in the centre, the agent rail on the right. */
export function App() {
  const bridge = useBridge();
  const openFiles = useMemo(() => new OpenFilesStore(bridge), [bridge]);
  return (
    <PrefsProvider>
      <ToastProvider>
        <DialogProvider>
          <OpenFilesContext.Provider value={openFiles}>
            <Shell openFiles={openFiles} />
          </OpenFilesContext.Provider>
        </DialogProvider>
      </ToastProvider>
    </PrefsProvider>
  );
}

function Shell({ openFiles }: { openFiles: OpenFilesStore }) {
  const bridge = useBridge();
  const toasts = useToasts();
  const [workspaceName, setWorkspaceName] = useState('');
  // Only what the shell itself uses: subscribing to all of it would re-render the whole window on every keystroke.
  const active = useSyncExternalStore(openFiles.subscribe, () => openFiles.getState().active);
  const anyDirty = useSyncExternalStore(openFiles.subscribe, () => openFiles.getState().files.some((f) => f.dirty));

  useEffect(() => {
    void bridge.request('workspace.info', {}).then((info) => {
      setWorkspaceName(info.name);
      document.title = `Kiln — ${info.name}`;
    });
  }, [bridge]);

  useKilnEvent('fs.change', useCallback((change: FsChange) => openFiles.handleFsChange(change), [openFiles]));

  // Ctrl/Cmd+S saves from anywhere, Monaco included (capture runs before Monaco sees the key).
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (isModKey(event) && !event.altKey && event.key.toLowerCase() === 's') {
        event.preventDefault();
        event.stopPropagation();
        void saveActive(openFiles, toasts);
      }
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, [openFiles, toasts]);

  // Coming back to the window: anything changed behind our back shows now, even if an event was missed.
  useEffect(() => {
    const onFocus = () => openFiles.recheckAll();
    window.addEventListener('focus', onFocus);
    return () => window.removeEventListener('focus', onFocus);
  }, [openFiles]);

  useEffect(() => {
    if (!anyDirty) return;
    const warn = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [anyDirty]);

  const open = useCallback((path: string) => void openFiles.open(path), [openFiles]);

  return (
    <div className="shell">
      <aside className="left-rail" aria-label="Explorer">
        <Explorer workspaceName={workspaceName} activePath={active} onOpen={open} />
      </aside>
      <main className="centre">
        <HeaderBar rootName={workspaceName} />
        <EditorArea />
      </main>
      <RightRail />
    </div>
  );
}

import { parseDataViewerTab } from '../../../shared/contract';
import { useCallback, useEffect, useLayoutEffect, useMemo, useState } from 'react';
import { CommandPaletteHost, CommandRegistry, CommandsContext, useCommands } from '../commands';
import { EditorArea, useOpenFilesStore } from '../editor';
import { HeaderBar, saveActive } from '../header';
import { useHotExit } from '../hot-exit';
import { StatusBar } from '../git';
import { QuickOpenHost } from '../quick-open';
import { TerminalPanel } from '../terminal';
import { LanguageFeatures, LanguageStatusItem, isLibraryPath } from '../language';
import { ProblemsPanel, ProblemsStatusItem } from '../problems';
import { TrustBanner } from '../trust';
import { EditorFileDrop, UploadStatus } from '../upload';
import { VariablesPanel } from '../variables';
import { DebugPanel } from '../debugger';
import { DialogProvider, IS_MAC, ToastProvider, useToasts } from '../ui';
import { useBridge, useStore } from '../base';
import { LeftRail } from './LeftRail';
import { RightRail } from './RightRail';
import { ConnectionLostLine, WatchStatusLine } from './StatusLines';
import './document-views';
import './contributions';

/** The window: file tree on the left, the editor in the centre, the agent rail on the right. */
export function App() {
  const commands = useMemo(() => new CommandRegistry(IS_MAC), []);
  // Every key binding goes through the one registry (capture: before Monaco or a view sees the key).
  // A layout effect: listening before the first paint, so a key pressed as soon as the window shows is not lost.
  useLayoutEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented) return;
      if (commands.handleKey(event)) {
        event.preventDefault();
        event.stopPropagation();
      }
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, [commands]);
  return (
    <CommandsContext.Provider value={commands}>
      <ToastProvider>
        <DialogProvider>
          <Shell />
        </DialogProvider>
      </ToastProvider>
    </CommandsContext.Provider>
  );
}

function Shell() {
  const bridge = useBridge();
  const openFiles = useOpenFilesStore();
  const toasts = useToasts();
  const [workspaceName, setWorkspaceName] = useState('');
  // Only what the shell itself uses: subscribing to all of it would re-render the whole window on every keystroke.
  // A library file's read-only tab (an absolute path outside the workspace) and a data viewer's have no place in the tree.
  const active = useStore(openFiles, (s) =>
    s.active && !isLibraryPath(s.active) && !parseDataViewerTab(s.active) ? s.active : null,
  );

  useEffect(() => {
    void bridge.request('workspace.info', {}).then((info) => {
      setWorkspaceName(info.name);
      document.title = `Kiln — ${info.name}`;
    });
  }, [bridge]);

  useCommands([
    { id: 'file.save', title: 'Save', category: 'File', keys: 'Mod+S', run: () => saveActive(openFiles, toasts) },
    {
      id: 'help.openLog',
      title: 'Open Log',
      category: 'Help',
      // Main names the file; its tab shows it read-only (the same in the desktop app and the web host).
      run: async () => {
        const { path } = await bridge.request('log.read', {});
        await openFiles.open(path);
      },
    },
  ]);

  // Coming back to the window: anything changed behind our back shows now, even if an event was missed.
  useEffect(() => {
    const onFocus = () => openFiles.recheckAll();
    window.addEventListener('focus', onFocus);
    return () => window.removeEventListener('focus', onFocus);
  }, [openFiles]);

  // Unsaved buffers are backed up and come back on the next start: leaving the page asks nothing.
  useHotExit();

  const open = useCallback((path: string) => void openFiles.open(path), [openFiles]);

  return (
    <div className="shell">
      <LeftRail workspaceName={workspaceName} activePath={active} onOpen={open} />
      <main className="centre">
        <TrustBanner />
        <HeaderBar rootName={workspaceName} />
        <EditorFileDrop activePath={active} onOpen={open}>
          <EditorArea />
        </EditorFileDrop>
        <TerminalPanel />
        <ProblemsPanel />
        <VariablesPanel />
        <DebugPanel />
      </main>
      <RightRail />
      <StatusBar>
        <UploadStatus />
        <ProblemsStatusItem />
        <LanguageStatusItem />
      </StatusBar>
      <LanguageFeatures />
      <QuickOpenHost onOpen={open} />
      <CommandPaletteHost />
      <WatchStatusLine />
      <ConnectionLostLine />
    </div>
  );
}

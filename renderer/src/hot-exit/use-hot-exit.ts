import { useEffect } from 'react';
import { useBridge } from '../base';
import { useOpenFilesStore } from '../editor';
import { usePrefs, useToasts } from '../ui';
import { useCommands } from '../commands';
import { AutoSave, type AutoSaveMode } from './auto-save';
import { HotExit } from './hot-exit';
import { useRecoveredFiles } from './recovered-files';
import { followWindowClose } from './window-close';

const AUTO_SAVE_TITLES: Record<AutoSaveMode, string> = {
  off: 'Off',
  afterDelay: 'After Delay',
  onFocusChange: 'On Focus Change',
};

/**
 * Hot exit for the window: restores the unsaved buffers of the last run (saying so once), backs up dirty
 * buffers as the operator types, and sends what is pending when the page goes away. Closing or reloading
 * with unsaved tabs therefore asks nothing: they come back, as in VS Code with `files.hotExit`.
 */
export function useHotExit(): void {
  const bridge = useBridge();
  const files = useOpenFilesStore();
  const toasts = useToasts();
  const recovered = useRecoveredFiles();
  useEffect(() => {
    const hotExit = new HotExit(bridge, files);
    let live = true;
    void hotExit.restore().then(
      (count) => {
        if (!live) return;
        recovered.setFiles(hotExit.recovered);
        const kept = hotExit.recovered.length;
        if (kept > 0)
          toasts.show({
            kind: 'info',
            message: `${kept} deleted file${kept === 1 ? ' has' : 's have'} unsaved changes: see Recovered files`,
            timeoutMs: 8000,
          });
        if (count > 0)
          toasts.show({
            kind: 'info',
            message: `Restored ${count} unsaved file${count === 1 ? '' : 's'}`,
            timeoutMs: 8000,
          });
      },
      () => undefined,
    );
    const stopFollowingClose = followWindowClose(bridge, files);
    const flush = () => hotExit.flush();
    window.addEventListener('beforeunload', flush);
    window.addEventListener('pagehide', flush);
    return () => {
      live = false;
      window.removeEventListener('beforeunload', flush);
      window.removeEventListener('pagehide', flush);
      hotExit.dispose();
      stopFollowingClose();
    };
  }, [bridge, files, toasts, recovered]);

  const { prefs, setPref } = usePrefs();
  useCommands([
    ...(['off', 'afterDelay', 'onFocusChange'] as const).map((mode) => ({
      id: `files.autoSave.${mode}`,
      title: `Auto Save: ${AUTO_SAVE_TITLES[mode]}${prefs?.autoSave === mode ? ' (current)' : ''}`,
      category: 'File',
      run: () => setPref('autoSave', mode),
    })),
    {
      id: 'files.hotExit.showRecovered',
      title: 'Hot Exit: Show Recovered Files',
      category: 'File',
      when: () => recovered.getState().files.length > 0,
      run: () => recovered.show(),
    },
    {
      id: 'files.hotExit.toggle',
      title: prefs?.hotExit === false ? 'Hot Exit: Turn On' : 'Hot Exit: Turn Off (ask before leaving)',
      category: 'File',
      run: () => setPref('hotExit', prefs?.hotExit === false),
    },
  ]);
  const autoSaveMode = prefs?.autoSave ?? 'off';
  const askOnLeave = prefs?.hotExit === false;
  useEffect(() => {
    const autoSave = new AutoSave(files);
    autoSave.setMode(autoSaveMode);
    const onBlur = () => autoSave.windowBlurred();
    window.addEventListener('blur', onBlur);
    return () => {
      window.removeEventListener('blur', onBlur);
      autoSave.dispose();
    };
  }, [files, autoSaveMode]);

  // hotExit off: leaving with unsaved tabs asks first, as before (the backups still guard against a crash).
  useEffect(() => {
    if (!askOnLeave) return;
    const warn = (event: BeforeUnloadEvent) => {
      if (files.getState().files.some((f) => f.dirty)) event.preventDefault();
    };
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [files, askOnLeave]);
}

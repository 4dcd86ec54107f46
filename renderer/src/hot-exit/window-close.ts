import type { KilnBridge } from '../../../shared/contract';
import type { OpenFilesStore } from '../editor';

/**
 * The window's side of closing with dirty tabs (Electron, hot exit off): main is told which tabs are dirty as
 * that changes, so its close can ask Save All / Don't Save / Cancel; after Save All every dirty tab is saved
 * here and main closes the window only if all of them were (a refused save keeps the window open, showing why).
 */
export function followWindowClose(bridge: KilnBridge, files: OpenFilesStore): () => void {
  let last = '';
  const report = () => {
    const paths = files
      .getState()
      .files.filter((f) => f.dirty)
      .map((f) => f.path);
    const key = paths.join('\0');
    if (key === last) return;
    last = key;
    void bridge.request('window.dirty', { paths }).catch(() => {
      last = '';
    });
  };
  const unsubscribe = files.subscribe(report);
  report();
  const saveAll = bridge.on('window.saveAll', () => void saveAllAndClose(bridge, files));
  return () => {
    unsubscribe();
    saveAll();
  };
}

/** Saves every dirty tab; asks main to close the window when none is left dirty. */
export async function saveAllAndClose(bridge: KilnBridge, files: OpenFilesStore): Promise<boolean> {
  const dirty = files.getState().files.filter((f) => f.dirty);
  await Promise.all(dirty.map((f) => files.save(f.path).catch(() => undefined)));
  if (files.getState().files.some((f) => f.dirty)) return false;
  await bridge.request('window.close', {});
  return true;
}

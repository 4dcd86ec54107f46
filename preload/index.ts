import { contextBridge, ipcRenderer, webUtils } from 'electron';
import { createPreloadApi } from './api';

contextBridge.exposeInMainWorld('kilnPreload', createPreloadApi(ipcRenderer));
// A dropped File's real path, so main copies it on the filesystem; '' for a File that is not on disk.
contextBridge.exposeInMainWorld('kilnFiles', {
  pathForFile: (file: File): string => webUtils.getPathForFile(file),
});

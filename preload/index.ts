import { contextBridge, ipcRenderer, webUtils } from 'electron';
import { createPreloadApi } from './api';
import { createDesktopApi } from './desktop';

contextBridge.exposeInMainWorld('kilnPreload', createPreloadApi(ipcRenderer));
contextBridge.exposeInMainWorld('kilnDesktop', createDesktopApi(ipcRenderer, webUtils.getPathForFile));

export { DOWNLOAD_ROUTE } from '../../../shared/download';
export { PressedRowTicket, ticketedDownloadUrl } from './download-tickets';
export {
  beginTreeDrag,
  endTreeDrag,
  TREE_PATHS_TYPE,
  downloadName,
  insertSnippet,
  isTreeDrag,
  pathsAsText,
  relativeToFile,
  treePathsOf,
  workspaceRelativeOf,
  writeTreeDrag,
} from './drag-data';
export { desktopApi, setDragLabel, startDownload } from './desktop';
export { placeOsFiles, usePathDrop } from './use-path-drop';

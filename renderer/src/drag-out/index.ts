export { DOWNLOAD_ROUTE } from '../../../shared/download';
export { PressedRowTicket, ticketedDownloadUrl } from './download-tickets';
export {
  TREE_PATHS_TYPE,
  downloadName,
  insertSnippet,
  pathsAsText,
  relativeToFile,
  TreeDragInFlight,
  useTreeDragInFlight,
  workspaceRelativeOf,
  writeTreeDrag,
} from './drag-data';
export { desktopApi, setDragLabel, startDownload } from './desktop';
export { placeOsFiles, usePathDrop } from './use-path-drop';

export { DOWNLOAD_ROUTE, downloadUrl } from '../../../shared/download';
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

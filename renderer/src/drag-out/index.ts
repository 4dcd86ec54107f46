export {
  DOWNLOAD_ROUTE,
  beginTreeDrag,
  endTreeDrag,
  TREE_PATHS_TYPE,
  downloadName,
  downloadUrl,
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

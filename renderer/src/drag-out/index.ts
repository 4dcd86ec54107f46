export {
  DOWNLOAD_ROUTE,
  TREE_PATHS_TYPE,
  downloadName,
  downloadUrl,
  isTreeDrag,
  pathsAsText,
  relativeToFile,
  treePathsOf,
  workspaceRelativeOf,
  writeTreeDrag,
} from './drag-data';

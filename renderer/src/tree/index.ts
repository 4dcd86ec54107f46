export { Explorer, copyText } from './Explorer';
export { TreeStore, type TreeRow } from './tree-store';
export { FileOps } from './file-ops';

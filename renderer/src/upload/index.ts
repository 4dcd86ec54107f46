export { carriesOsFiles, incomingFromInput, readDrop, type IncomingItem } from './incoming';
export { pickFiles } from './pick-files';
export { UploadStatus } from './UploadStatus';
export { wantsMove } from './transfer-text';
export { useUploads, type UploadJob } from './upload-store';
export { EditorFileDrop } from './EditorFileDrop';
export { useCopyIn } from './copy-in';

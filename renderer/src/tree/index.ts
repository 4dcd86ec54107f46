export { Explorer } from './Explorer';
export { EditorFileDrop, UploadStatus, useCopyIn } from './upload';

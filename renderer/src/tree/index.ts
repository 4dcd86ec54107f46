export { Explorer } from './Explorer';
export { EditorFileDrop, UploadStatus } from './upload';

export { receiveUpload } from './http-upload';
export { uploadHandlers } from './handlers';
export { parseUploadRequest, uploadStatusOf } from './upload-request';

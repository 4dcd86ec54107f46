export { DownloadService, downloadStatus } from './download';
export { DOWNLOAD_ROUTE, attachmentDisposition, contentTypeOf } from './headers';

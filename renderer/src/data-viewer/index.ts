export { DataViewerDocument } from './DataViewerDocument';
export { DataViewStore, parseFilter, toTsv } from './data-store';

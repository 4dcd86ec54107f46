export { DataViewer, type DataViewerOptions } from './data-viewer';

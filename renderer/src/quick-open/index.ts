export { QuickOpen } from './QuickOpen';
export { RecentFiles } from './recent-files';
export { QuickOpenHost } from './QuickOpenHost';

export { QuickOpenHost } from './QuickOpenHost';

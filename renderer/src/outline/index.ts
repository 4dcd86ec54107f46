export { OutlineView } from './OutlineView';

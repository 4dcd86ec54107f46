export { HeaderBar, saveActive } from './HeaderBar';
export { Breadcrumb } from './Breadcrumb';

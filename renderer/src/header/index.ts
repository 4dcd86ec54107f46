export { HeaderBar, saveActive } from './HeaderBar';

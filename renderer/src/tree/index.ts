export { Explorer } from './Explorer';

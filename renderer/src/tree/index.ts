export { Explorer } from './Explorer';
export { nameOf } from './paths';

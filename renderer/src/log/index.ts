export { LogDocument } from './LogDocument';
export { isLogPath } from './log-path';

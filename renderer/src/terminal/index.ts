export { TerminalPanel } from './TerminalPanel';

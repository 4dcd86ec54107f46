export { TerminalPanel } from './TerminalPanel';
export { TerminalStore, type TerminalTab, type TerminalsState } from './terminal-store';

export { TerminalService, type TerminalServiceOptions } from './service';
export { terminalHandlers } from './handlers';

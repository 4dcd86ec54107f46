import type { terminalRequests } from '../../shared/contract';
import type { HandlersFor } from '../router';
import type { TerminalService } from './service';

export function terminalHandlers(terminals: TerminalService): HandlersFor<keyof typeof terminalRequests> {
  return {
    'terminal.create': ({ cols, rows }) => terminals.create(cols, rows),
    'terminal.input': ({ id, data }) => (terminals.input(id, data), {}),
    'terminal.resize': ({ id, cols, rows }) => (terminals.resize(id, cols, rows), {}),
    'terminal.ack': ({ id, chars }) => (terminals.ack(id, chars), {}),
    'terminal.kill': async ({ id }) => (await terminals.kill(id), {}),
  };
}

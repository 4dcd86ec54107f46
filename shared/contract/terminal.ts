import { z } from 'zod';
import { request } from './define';

const TerminalId = z.string().min(1).max(64);
const Cols = z.number().int().min(2).max(1000);
const Rows = z.number().int().min(1).max(500);

export const terminalRequests = {
  /** Starts the user's shell in the workspace root, with src/ on PYTHONPATH. */
  'terminal.create': request(
    z.object({ cols: Cols, rows: Rows }),
    z.object({ id: TerminalId, shell: z.string(), cwd: z.string() }),
  ),
  /** Keystrokes and pastes. */
  'terminal.input': request(z.object({ id: TerminalId, data: z.string().max(1_000_000) }), z.object({})),
  'terminal.resize': request(z.object({ id: TerminalId, cols: Cols, rows: Rows }), z.object({})),
  /**
   * The renderer has drawn this many more characters of output. Main pauses a terminal whose output runs
   * too far ahead of what was drawn, and resumes it as acknowledgements arrive (back-pressure).
   */
  'terminal.ack': request(z.object({ id: TerminalId, chars: z.number().int().min(0) }), z.object({})),
  /** Ends the shell and everything it started (closing its tab). */
  'terminal.kill': request(z.object({ id: TerminalId }), z.object({})),
} as const;

export const terminalEvents = {
  'terminal.data': z.object({ id: TerminalId, data: z.string() }),
  'terminal.exit': z.object({ id: TerminalId, exitCode: z.number().int(), signal: z.number().int().optional() }),
} as const;

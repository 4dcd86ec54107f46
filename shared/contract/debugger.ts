import { z } from 'zod';
import { request } from './define';
import { CellRunResult } from './notebook';
import { RelPath } from './workspace';

/*
 * The notebook debugger: the Jupyter debug protocol (DAP in debug_request / debug_event) spoken by main to a
 * notebook's kernel. Breakpoints are kept by Kiln per notebook and cell (never in the notebook file); frames
 * come back with the cell they are in, so the UI never shows ipykernel's temp file names.
 */

/** 'off' no debug session; 'running' a Debug Cell run is going; 'paused' stopped at a breakpoint or step; 'unavailable' this kernel cannot debug (`message` says why). */
export const DebugStatus = z.enum(['off', 'running', 'paused', 'unavailable']);
export type DebugStatus = z.infer<typeof DebugStatus>;

export const DebugFrame = z.object({
  /** The debug adapter's frame id (for scopes and evaluate), valid while paused. */
  id: z.number().int(),
  /** The function's name ('<module>' for a cell's top level). */
  name: z.string(),
  /** The cell the frame runs in, or null (a module's file, the library). */
  cellId: z.string().nullable(),
  /** The workspace file the frame runs in (a module imported from `src/`), or null (a cell, the library). */
  file: RelPath.nullable(),
  /** What the call stack shows: "Cell 3" (its position in the notebook), or the file's path. */
  where: z.string(),
  /** 1-based line in the cell (or file). */
  line: z.number().int(),
});
export type DebugFrame = z.infer<typeof DebugFrame>;

export const DebugState = z.object({
  path: RelPath,
  status: DebugStatus,
  /** Why the kernel cannot debug, or what went wrong, in one line. */
  message: z.string().optional(),
  /** What this session leaves out, in one line, while it goes (breakpoints in files on a remote server's kernel). */
  notice: z.string().optional(),
  /** The paused thread's frames, innermost first; empty unless paused. */
  frames: z.array(DebugFrame),
});
export type DebugState = z.infer<typeof DebugState>;

export const DebugVariable = z.object({
  name: z.string(),
  type: z.string(),
  value: z.string(),
});
export type DebugVariable = z.infer<typeof DebugVariable>;

export const DebugScope = z.object({ name: z.string(), variables: z.array(DebugVariable) });
export type DebugScope = z.infer<typeof DebugScope>;

export const DebugCommand = z.enum(['continue', 'next', 'stepIn', 'stepOut', 'pause', 'stop']);
export type DebugCommand = z.infer<typeof DebugCommand>;

/** A cell's breakpoints: 1-based line numbers. */
export const CellBreakpoints = z.record(z.string(), z.array(z.number().int().min(1)));
export type CellBreakpoints = z.infer<typeof CellBreakpoints>;

/** Breakpoints in the workspace's `.py` files: 1-based lines by workspace-relative path. */
export const FileBreakpoints = z.record(RelPath, z.array(z.number().int().min(1)));
export type FileBreakpoints = z.infer<typeof FileBreakpoints>;

export const debuggerRequests = {
  /** The notebook's debug state now. */
  'debugger.state': request(z.object({ path: RelPath }), DebugState),
  /** The notebook's breakpoints, by cell id. */
  'debugger.breakpoints': request(z.object({ path: RelPath }), CellBreakpoints),
  /** Replaces one cell's breakpoints (kept in Kiln's state; sent to the kernel when a debug session is on). */
  'debugger.setBreakpoints': request(
    z.object({ path: RelPath, cellId: z.string(), lines: z.array(z.number().int().min(1)) }),
    CellBreakpoints,
  ),
  /** The breakpoints in the workspace's `.py` files (kept in Kiln's state, by workspace-relative path). */
  'debugger.fileBreakpoints': request(z.object({}), FileBreakpoints),
  /**
   * Replaces one `.py` file's breakpoints; a debug session going gets them at once (in a trusted folder). Any
   * other file: E_BAD_REQUEST.
   */
  'debugger.setFileBreakpoints': request(
    z.object({ path: RelPath, lines: z.array(z.number().int().min(1)) }),
    FileBreakpoints,
  ),
  /**
   * Runs the cell under the debugger, resolving when the run ends (it may pause on the way). A kernel that
   * cannot debug: the state says 'unavailable' and the cell does not run.
   */
  'debugger.debugCell': request(z.object({ path: RelPath, cellId: z.string() }), CellRunResult.nullable()),
  /** Continue, step or pause the paused (or running) debug session; 'stop' ends it (the cell is interrupted). */
  'debugger.command': request(z.object({ path: RelPath, command: DebugCommand }), DebugState),
  /** The locals and globals of a paused frame. */
  'debugger.scopes': request(z.object({ path: RelPath, frameId: z.number().int() }), z.array(DebugScope)),
  /** Evaluates an expression in a paused frame. */
  'debugger.evaluate': request(
    z.object({ path: RelPath, frameId: z.number().int(), expression: z.string() }),
    z.object({ ok: z.boolean(), result: z.string() }),
  ),
} as const;

export const debuggerEvents = {
  /** A notebook's debug state changed: paused (with frames), running, off or unavailable. */
  'debugger.state': DebugState,
  /** The files' breakpoints changed: set, or carried along by a rename or move, or gone with their file. */
  'debugger.fileBreakpoints': FileBreakpoints,
} as const;

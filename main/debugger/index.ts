export { DebuggerService, PAUSED_FOR_AGENT, type DebuggerServiceOptions } from './debugger-service';
export { FILE_BREAKPOINTS_LOCAL_ONLY, NotebookDebugger } from './notebook-debugger';
export { FileBreakpointStore, kernelPathOf, workspacePathOf } from './file-breakpoints';

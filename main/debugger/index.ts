export { DebuggerService, PAUSED_FOR_AGENT, type DebuggerServiceOptions } from './debugger-service';
export { NotebookDebugger } from './notebook-debugger';
export { FileBreakpointStore, kernelPathOf, workspacePathOf } from './file-breakpoints';

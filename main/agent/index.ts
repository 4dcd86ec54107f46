export {
  EditSessionService,
  type AgentEmit,
  type EditConfigSource,
  type EditFileAccess,
  type EditSessionServiceOptions,
} from './edit-sessions';
export { RunEngine, composeSystemPrompt, type EngineOutcome, type EngineToolCall, type RunRequest, type RunSlot } from './engine';
export { SESSION_KIND_POLICIES, selectTools, type SessionKindPolicy, type ToolSources } from './kinds';
export { createLanguageModel } from './providers';
export { describeModelError } from './model-errors';
export { agentHandlers } from './handlers';
export {
  WorkspaceSessionService,
  type AgentSessionEmit,
  type WorkspaceAgentConfigSource,
  type WorkspaceSessionServiceOptions,
} from './workspace-sessions';
export { agentSessionHandlers } from './workspace-session-handlers';

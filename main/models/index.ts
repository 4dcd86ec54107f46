export {
  RunEngine,
  composeSystemPrompt,
  type EngineOutcome,
  type EngineToolCall,
  type RunRequest,
  type RunSlot,
} from './engine';
export { SESSION_KIND_POLICIES, selectTools, type SessionKindPolicy, type ToolSources } from './kinds';
export { createLanguageModel } from './providers';
export { describeModelError } from './model-errors';
export { RecordFiles } from './record-files';

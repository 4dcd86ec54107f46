export { AgentService, type AgentEmit, type AgentConfigSource, type AgentServiceOptions } from './service';
export { agentHandlers } from './handlers';

export { AgentService, type AgentConfigSource, type AgentServiceOptions } from './service';
export { agentHandlers } from './handlers';

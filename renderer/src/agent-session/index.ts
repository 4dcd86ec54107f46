export { AgentPanel } from './AgentPanel';
export { AgentSessionStore, agentSessionStoreFor, useAgentSession, useAgentSessionStore, type AgentSessionState } from './agent-session-store';

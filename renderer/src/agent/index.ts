export { AgentPanel } from './AgentPanel';

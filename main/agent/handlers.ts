import type { HandlersFor } from '../router';
import type { AgentService } from './service';

type AgentChannel = 'agent.open' | 'agent.send' | 'agent.stop' | 'agent.clear';

export function agentHandlers(sessions: AgentService): HandlersFor<AgentChannel> {
  return {
    'agent.open': () => sessions.open(),
    'agent.send': ({ text }) => sessions.send(text),
    'agent.stop': () => ({ stopped: sessions.stop() }),
    'agent.clear': async () => ({ cleared: await sessions.clear() }),
  };
}

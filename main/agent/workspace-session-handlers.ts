import type { HandlersFor } from '../router';
import type { WorkspaceSessionService } from './workspace-sessions';

type AgentSessionChannel = 'agentSession.open' | 'agentSession.send' | 'agentSession.stop' | 'agentSession.clear';

export function agentSessionHandlers(sessions: WorkspaceSessionService): HandlersFor<AgentSessionChannel> {
  return {
    'agentSession.open': () => sessions.open(),
    'agentSession.send': ({ text }) => sessions.send(text),
    'agentSession.stop': () => ({ stopped: sessions.stop() }),
    'agentSession.clear': async () => ({ cleared: await sessions.clear() }),
  };
}

import type { HandlersFor } from '../router';
import type { EditSessionService } from './edit-sessions';

type AgentChannel =
  | 'agent.openSession'
  | 'agent.send'
  | 'agent.stop'
  | 'agent.getProposal'
  | 'agent.accept'
  | 'agent.reviewAgainstDisk'
  | 'agent.reject'
  | 'agent.clear'
  | 'agent.setModel'
  | 'agent.models';

export function agentHandlers(edits: EditSessionService): HandlersFor<AgentChannel> {
  return {
    'agent.openSession': ({ path, confirmLarge }) => edits.openSession(path, { confirmLarge }),
    'agent.send': ({ path, text, modelOverride, confirmLarge }) => edits.send(path, text, { modelOverride, confirmLarge }),
    'agent.stop': ({ path }) => ({ stopped: edits.stop(path) }),
    'agent.getProposal': ({ path, proposalId }) => edits.getProposal(path, proposalId),
    'agent.accept': ({ path, proposalId }) => edits.acceptProposal(path, proposalId),
    'agent.reviewAgainstDisk': ({ path, proposalId }) => edits.reviewAgainstDisk(path, proposalId),
    'agent.reject': ({ path, proposalId }) => edits.rejectProposal(path, proposalId),
    'agent.clear': async ({ path }) => ({ cleared: await edits.clear(path) }),
    'agent.setModel': ({ path, model }) => edits.setModel(path, model),
    'agent.models': () => edits.models(),
  };
}

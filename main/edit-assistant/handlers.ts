import type { HandlersFor } from '../router';
import type { EditAssistantService } from './service';

type EditAssistantChannel =
  | 'editAssistant.openSession'
  | 'editAssistant.send'
  | 'editAssistant.stop'
  | 'editAssistant.getProposal'
  | 'editAssistant.accept'
  | 'editAssistant.reviewAgainstDisk'
  | 'editAssistant.decideCells'
  | 'editAssistant.reject'
  | 'editAssistant.clear'
  | 'editAssistant.setModel'
  | 'editAssistant.models';

export function editAssistantHandlers(edits: EditAssistantService): HandlersFor<EditAssistantChannel> {
  return {
    'editAssistant.openSession': ({ path, confirmLarge }) => edits.openSession(path, { confirmLarge }),
    'editAssistant.send': ({ path, text, modelOverride, confirmLarge }) =>
      edits.send(path, text, { modelOverride, confirmLarge }),
    'editAssistant.stop': ({ path }) => ({ stopped: edits.stop(path) }),
    'editAssistant.getProposal': ({ path, proposalId }) => edits.getProposal(path, proposalId),
    'editAssistant.accept': ({ path, proposalId }) => edits.acceptProposal(path, proposalId),
    'editAssistant.reviewAgainstDisk': ({ path, proposalId }) => edits.reviewAgainstDisk(path, proposalId),
    'editAssistant.decideCells': ({ path, proposalId, accept, reject }) =>
      edits.decideCells(path, proposalId, { accept, reject }),
    'editAssistant.reject': ({ path, proposalId }) => edits.rejectProposal(path, proposalId),
    'editAssistant.clear': async ({ path }) => ({ cleared: await edits.clear(path) }),
    'editAssistant.setModel': ({ path, model }) => edits.setModel(path, model),
    'editAssistant.models': () => edits.models(),
  };
}

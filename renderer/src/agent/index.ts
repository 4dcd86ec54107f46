export { EditPanel } from './EditPanel';
export { ProposalReviewSlot } from './ProposalReview';
export {
  EditAssistantStore,
  editAssistantStoreFor,
  useEditAssistant,
  useEditAssistantStore,
  PROPOSAL_RECEIVED_MARK,
  type EditAssistantState,
  type ReviewState,
  type SessionView,
} from './edit-assistant-store';

export { EditPanel } from './EditPanel';
export { ProposalReviewSlot } from './ProposalReview';

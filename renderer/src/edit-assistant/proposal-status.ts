import type { ProposalStatus } from '../../../shared/contract';

/**
 * A proposal's status as its chip and pills show it, which is also how it is announced (a control's name
 * holds its visible text). The words avoid "accept"/"reject", so the panel's Accept and Reject buttons stay
 * the only controls those names match.
 */
export const PROPOSAL_STATUS_SHOWN: Record<ProposalStatus, string> = {
  pending: 'pending',
  accepted: 'written',
  rejected: 'declined',
  superseded: 'superseded',
};

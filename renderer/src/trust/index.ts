export { PromptWithheld } from './PromptWithheld';
export { TrustBanner } from './TrustBanner';
export { useWorkspaceTrust } from './use-workspace-trust';

export { PromptWithheld } from './PromptWithheld';
export { TrustBanner } from './TrustBanner';
export { UntrustedKernelNotice } from './UntrustedKernelNotice';
export { useWorkspaceTrust } from './use-workspace-trust';

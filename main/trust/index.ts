export { WorkspaceTrust, trustFolder } from './workspace-trust';
export { insideGitRepository, withheldFeatures } from './withheld';
export { TrustStateService, type TrustStateOptions } from './trust-state';

export { WorkspaceTrust, trustFolder } from './workspace-trust';
export { insideGitRepository, withheldFeatures } from './withheld';

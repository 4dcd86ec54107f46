export { WorkspaceTrust, TRUST_FILE, trustFolder, type WorkspaceTrustOptions } from './workspace-trust';

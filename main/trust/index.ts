export { WorkspaceTrust, trustFolder } from './workspace-trust';

export { KernelEnvironments, installCommand, UNTRUSTED_ENVIRONMENTS_NOTE, REMOTE_ENVIRONMENTS_NOTE } from './service';
export type { KernelEnvironmentsOptions } from './service';
export { kernelEnvironmentHandlers, type KernelSwitcher } from './handlers';
export { environmentKernelspecName } from './kernelspec';
export { findWorkspaceEnvironments, findCondaEnvironments, parsePyvenvCfg, type FoundEnvironment } from './discover';

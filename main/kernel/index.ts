export { JupyterServerManager } from './jupyter-server';
export type {
  JupyterConnection,
  JupyterServerEvent,
  JupyterServerOptions,
  JupyterServerStatus,
  KernelSpecList,
  KernelspecWriter,
  OwnKernelspecs,
  RemoteJupyter,
} from './jupyter-server';
export { KernelSession } from './kernel-session';
export type { ExecuteOptions, ExecutionReply, KernelSessionOptions, StrayOutput } from './kernel-session';
export { findJupyter, JUPYTER_INSTALL_HINT } from './discovery';
export type { JupyterCommand } from './discovery';
export { jupyterSource, type JupyterSourceSetting } from './source';
export { KernelAssist, ASSIST_TIMEOUT_MS, toCodePoints, fromCodePoints } from './kernel-assist';
export type { KernelAssistOptions } from './kernel-assist';
export { VariablesInspector, NOT_PYTHON, VARIABLES_LIMIT } from './variables';
export type { VariablesTarget } from './variables';
export { KernelEnvironments, kernelEnvironmentHandlers, type KernelEnvironmentsOptions } from './environments';
export { DataViewer } from './data-viewer';

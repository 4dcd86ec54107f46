export { JupyterServerManager } from './jupyterServer';
export type { JupyterConnection, JupyterServerEvent, JupyterServerOptions, JupyterServerStatus, KernelSpecList, RemoteJupyter } from './jupyterServer';
export { KernelSession } from './kernelSession';
export type { ExecuteOptions, ExecutionReply, KernelSessionOptions, StrayOutput } from './kernelSession';
export { findJupyter, JUPYTER_INSTALL_HINT } from './discovery';
export type { JupyterCommand } from './discovery';
export { findProcessesByMarker } from './processes';
export { jupyterSource, type JupyterSourceSetting } from './source';

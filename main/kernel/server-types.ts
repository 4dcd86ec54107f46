/** The Jupyter server's shapes: where it comes from, its status and how to talk to it (jupyter-server.ts owns it). */
import type { ServerConnection } from '@jupyterlab/services';

export interface RemoteJupyter {
  /** e.g. http://gpu-box:8888/ or https://hub.example.org/user/me/ */
  url: string;
  token: string;
}

export interface JupyterServerOptions {
  /** The folder the embedded server serves (its root_dir): the workspace. */
  rootDir: string;
  /**
   * Parent folder for the server's private Jupyter dirs (config, data, runtime, IPython); a fresh
   * subfolder is made in it per start-up and removed on dispose. Defaults to the OS temp folder.
   * Never the operator's home: Kiln must not touch their Jupyter setup.
   */
  stateDir?: string;
  /** The configured command that runs `jupyter` (e.g. ['/opt/conda/bin/jupyter']); PATH is searched when omitted. */
  command?: string[];
  /** Use this server instead of starting one (same code path from here on). */
  remote?: RemoteJupyter;
  /** Environment for discovery and the server (PATH matters); defaults to process.env. */
  env?: NodeJS.ProcessEnv;
  /** How long the server may take to answer /api/status. */
  startTimeoutMs?: number;
  /** Restarts allowed within a minute before giving up on a crashing server. */
  maxRestartsPerMinute?: number;
}

/**
 * 'unreachable': a remote server that was running stopped answering; Kiln keeps asking, and says 'running' again
 * (same generation: its kernels may still be there) once it answers.
 */
export type JupyterServerStatus =
  'stopped' | 'starting' | 'running' | 'unreachable' | 'restarting' | 'failed' | 'disposed';

export interface JupyterServerEvent {
  status: JupyterServerStatus;
  /** Bumps on every (re)start; kernels of an older generation are gone. */
  generation: number;
  /** Why (for 'failed', 'restarting' and 'unreachable'). */
  message?: string;
}

/** How to talk to the running server. */
export interface JupyterConnection {
  baseUrl: string;
  wsUrl: string;
  token: string;
  settings: ServerConnection.ISettings;
  generation: number;
  remote: boolean;
}

/** Where the embedded server finds Kiln's own kernelspecs, and the launcher they start kernels through. */
export interface OwnKernelspecs {
  kernelsDir: string;
  launcher: string;
}

/** Writes kernelspecs of Kiln's making (a workspace's environments) into the embedded server's private data folder. */
export type KernelspecWriter = (where: OwnKernelspecs) => Promise<void>;

export interface KernelSpecList {
  default: string | null;
  specs: { name: string; displayName: string; language: string }[];
}

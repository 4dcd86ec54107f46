import type { KernelSpecInfo } from '../../shared/contract';
import type { IDisposable } from '../../shared/base/lifecycle';
import { KilnError } from '../../shared/errors';
import type { JupyterServerEvent, JupyterServerManager } from '../kernel';
import { asKernelError, type OpenNotebookEvents } from './notebook-host';
import { UNTRUSTED_KERNEL_MESSAGE, type NotebookServiceOptions } from './service-options';

/**
 * The notebook service's access to kernels: the workspace's trust (no kernel in an untrusted folder), the Jupyter
 * server (or E_NO_JUPYTER), its kernelspecs, and its problems announced once.
 */
export class NotebookJupyter {
  private lastJupyterError: string | null = null;
  private readonly followingJupyter: IDisposable | null;

  constructor(
    private readonly options: Pick<NotebookServiceOptions, 'jupyter' | 'trusted'>,
    private readonly events: Pick<OpenNotebookEvents, 'jupyterError'>,
  ) {
    this.followingJupyter = options.jupyter?.onStatusChanged((event) => this.onJupyterStatus(event)) ?? null;
  }

  /**
   * Whether kernels may start in this workspace (it is trusted). Callers that would run a notebook's cells
   * ask this first; every request that would start a kernel is refused with E_UNTRUSTED otherwise.
   */
  kernelsAllowed(): boolean {
    return this.options.trusted?.() ?? true;
  }

  /** E_UNTRUSTED unless kernels may start (see kernelsAllowed). */
  requireTrusted(): void {
    if (!this.kernelsAllowed()) throw new KilnError('E_UNTRUSTED', UNTRUSTED_KERNEL_MESSAGE);
  }

  /** The server's kernelspecs. Untrusted, E_UNTRUSTED: no Jupyter server is started for an untrusted folder. */
  async kernelSpecs(): Promise<{ default: string | null; specs: KernelSpecInfo[] }> {
    this.requireTrusted();
    const jupyter = this.requireJupyter();
    try {
      return await jupyter.kernelSpecs();
    } catch (err) {
      this.reportJupyterError(null, err);
      throw asKernelError(err);
    }
  }

  requireJupyter(): JupyterServerManager {
    if (!this.options.jupyter) {
      throw new KilnError(
        'E_NO_JUPYTER',
        'No Jupyter server is configured. Install Jupyter or set a Jupyter command or remote server in the settings.',
      );
    }
    return this.options.jupyter;
  }

  /** Announces a Jupyter problem once (not once per cell or per notebook). */
  reportJupyterError(notebookPath: string | null, err: unknown): void {
    const code = err instanceof KilnError ? err.code : 'E_KERNEL_DEAD';
    const message = err instanceof Error ? err.message : String(err);
    if (code === 'E_NO_JUPYTER') {
      if (this.lastJupyterError === message) return;
      this.lastJupyterError = message;
      this.events.jupyterError({ code, message });
      return;
    }
    this.events.jupyterError({ code, message, path: notebookPath ?? undefined });
  }

  private onJupyterStatus(event: JupyterServerEvent): void {
    if (event.status === 'running') this.lastJupyterError = null;
    if (event.status === 'restarting') {
      this.events.jupyterError({
        code: 'E_KERNEL_DEAD',
        message: `${event.message ?? 'The Jupyter server stopped.'} Restarting it; kernels start again without their variables.`,
      });
    }
  }

  dispose(): Promise<void> | void {
    return this.followingJupyter?.dispose();
  }
}

import type { KernelEnvironmentList, KilnBridge } from '../../../../shared/contract';
import { errorText, perBridge, Store } from '../../base';

export interface KernelEnvironmentsState {
  /** Null until first asked. */
  list: KernelEnvironmentList | null;
  /** Why the list could not be had. */
  error: string | null;
}

/** The window's environments for the kernel picker: asked once, then kept current by main's announcements. */
export class KernelEnvironmentsStore extends Store<KernelEnvironmentsState> {
  constructor(private readonly bridge: KilnBridge) {
    super({ list: null, error: null });
    // A new .venv, ipykernel installed, trust granted or revoked: main says so.
    this.own(bridge.on('kernelEnvironments.changed', (list) => this.set({ list, error: null })));
  }

  async load(): Promise<void> {
    try {
      this.set({ list: await this.bridge.request('kernelEnvironments.list', {}), error: null });
    } catch (err) {
      this.set({ error: errorText(err) });
    }
  }
}

export const useKernelEnvironments = perBridge((bridge) => new KernelEnvironmentsStore(bridge));

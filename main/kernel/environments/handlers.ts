import type { KernelInfo, kernelEnvironmentRequests } from '../../../shared/contract';
import type { HandlersFor } from '../../router';
import type { KernelEnvironments } from './service';

/** What switching a notebook's kernel takes (NotebookService has it); kernel/ does not import notebook/. */
export interface KernelSwitcher {
  setKernel(notebookPath: string, kernelspecName: string): Promise<KernelInfo>;
}

/** The environment channels: the picker's list, and a notebook switched to an environment's kernel. */
export function kernelEnvironmentHandlers(
  environments: KernelEnvironments,
  notebooks: KernelSwitcher,
): HandlersFor<keyof typeof kernelEnvironmentRequests> {
  return {
    'kernelEnvironments.list': () => environments.list(),
    'notebook.setEnvironment': async ({ path, id }) => {
      const { name } = await environments.prepare(id);
      // The same switch as picking a kernelspec: metadata.kernelspec is written, the notebook turns dirty.
      return notebooks.setKernel(path, name);
    },
  };
}

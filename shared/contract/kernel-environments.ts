import { z } from 'zod';
import { request } from './define';
import { KernelInfo } from './notebook';
import { RelPath } from './workspace';

/** Kiln's kernelspecs for environments are named so: the picker lists them as environments, not kernelspecs. */
export const ENVIRONMENT_KERNELSPEC_PREFIX = 'kiln-env-';

/** A Python environment a notebook's kernel can run in: a venv in the workspace, or a conda environment. */
export const KernelEnvironment = z.object({
  /** The kernelspec name Kiln writes for it (stable for its folder): what `notebook.setEnvironment` takes. */
  id: z.string(),
  kind: z.enum(['venv', 'conda']),
  /** Its folder: workspace-relative inside the workspace (`.venv`), absolute outside it (conda's, `~` for home). */
  path: z.string(),
  inWorkspace: z.boolean(),
  /** `3.11.2`, read from pyvenv.cfg or conda's metadata (never by running it); null when neither says. */
  pythonVersion: z.string().nullable(),
  /** ipykernel is importable there (found in its site-packages, or the base's for a --system-site-packages venv). */
  hasIpykernel: z.boolean(),
  /** Without ipykernel: the command that would install it, for the operator to run (Kiln runs nothing on the network). */
  installCommand: z.string().nullable(),
  /** What the kernel is called once picked (the kernelspec's display_name): `Python 3.11.2 (.venv)`. */
  displayName: z.string(),
});
export type KernelEnvironment = z.infer<typeof KernelEnvironment>;

export const KernelEnvironmentList = z.object({
  /** False in an untrusted folder (and with a remote Jupyter server): none are offered, `note` says why. */
  offered: z.boolean(),
  note: z.string().nullable(),
  environments: z.array(KernelEnvironment),
});
export type KernelEnvironmentList = z.infer<typeof KernelEnvironmentList>;

export const kernelEnvironmentRequests = {
  /** The environments the kernel picker offers besides the server's kernelspecs. */
  'kernelEnvironments.list': request(z.object({}), KernelEnvironmentList),
  /**
   * Starts the notebook's kernel from an environment: Kiln writes its kernelspec in its private Jupyter data folder
   * and switches to it (metadata.kernelspec is written, as `notebook.setKernel` does). E_NOT_FOUND for an unknown
   * id, E_BAD_REQUEST when it lacks ipykernel (the message says how to install it), E_UNTRUSTED in an untrusted folder.
   */
  'notebook.setEnvironment': request(z.object({ path: RelPath, id: z.string() }), KernelInfo),
} as const;

export const kernelEnvironmentEvents = {
  /** The list changed: an environment appeared, went, or gained ipykernel; trust was granted or revoked. */
  'kernelEnvironments.changed': KernelEnvironmentList,
} as const;

export { EnvironmentsButton, environmentLabel } from './EnvironmentsButton';
export { KernelEnvironmentsStore, useKernelEnvironments, type KernelEnvironmentsState } from './kernel-environments';

export { Verbs, replaceExactlyOnce, type VerbsOptions, type VerbCallOptions, type VerbTimeouts } from './verbs';
export { compactOutputs, type NotebookVerbTarget } from './notebook-target';
export { NotebookServiceVerbTarget, type NotebookAdapterOptions } from './notebook-adapter';
export { AuditLog, slugForCode, slugify, runFileStepSource } from './audit-log';
export { findKernelPython } from './python';
export { verbsHandlers, type VerbsHandlers } from './handlers';
export { verbToolSet } from './ai-tools';
export {
  VERBS,
  VERB_NAMES,
  verbInputJsonSchema,
  verbResultJsonSchema,
  isVerbName,
  type VerbName,
  type VerbArgs,
  type VerbResult,
} from '../../shared/contract/verbs';

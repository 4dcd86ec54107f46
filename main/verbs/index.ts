export { Verbs, type VerbsOptions } from './verbs';
export { type NotebookVerbTarget } from './notebook-target';
export { NotebookServiceVerbTarget } from './notebook-adapter';
export { createVerbStack, type VerbStack, type VerbStackOptions } from './stack';
export { slugForCode, slugify } from './audit-log';
export { findKernelPython } from './python';
export { verbsHandlers } from './handlers';
export { verbToolSet } from './ai-tools';
export { VERB_NAMES } from '../../shared/contract/verbs';

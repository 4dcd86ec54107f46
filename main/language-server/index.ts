export { LanguageService, isPython, type LanguageServiceOptions } from './service';
export { languageHandlers } from './handlers';
export { findNotebookInterpreter } from './interpreter';
export { applyTextEdits, offsetAt } from './text';
export { SERVER_NAME, serverVersion } from './server-process';

import type { HandlersFor } from '../router';
import type { LanguageService } from './service';

/** The contract's `language.*` channels, bound to the workspace's language service. */
export function languageHandlers(service: LanguageService) {
  const handlers: HandlersFor<
    | 'language.didOpen'
    | 'language.didChange'
    | 'language.didClose'
    | 'language.completion'
    | 'language.resolveCompletion'
    | 'language.hover'
    | 'language.signatureHelp'
    | 'language.definition'
    | 'language.readLibraryFile'
    | 'language.references'
    | 'language.prepareRename'
    | 'language.rename'
    | 'language.applyEdits'
    | 'language.documentSymbols'
    | 'language.workspaceSymbols'
    | 'language.format'
    | 'language.codeActions'
    | 'language.cancel'
    | 'language.status'
    | 'language.allDiagnostics'
  > = {
    'language.didOpen': ({ path, version, text }) => ({ accepted: service.didOpen(path, version, text) }),
    'language.didChange': ({ path, version, changes }) => ({ accepted: service.didChange(path, version, changes) }),
    'language.didClose': ({ path }) => ({ accepted: service.didClose(path) }),
    'language.completion': ({ path, position, triggerCharacter, requestId }) =>
      service.completion(path, position, triggerCharacter, requestId),
    'language.resolveCompletion': ({ resultId, resolveIndex }) => service.resolveCompletion(resultId, resolveIndex),
    'language.hover': ({ path, position, requestId }) => service.hover(path, position, requestId),
    'language.signatureHelp': ({ path, position, requestId }) => service.signatureHelp(path, position, requestId),
    'language.definition': ({ path, position, kind, requestId }) => service.definition(path, position, kind, requestId),
    'language.readLibraryFile': ({ path }) => service.readLibraryFile(path),
    'language.references': ({ path, position, includeDeclaration, requestId }) =>
      service.references(path, position, includeDeclaration, requestId),
    'language.prepareRename': ({ path, position, requestId }) => service.prepareRename(path, position, requestId),
    'language.rename': ({ path, position, newName, requestId }) => service.rename(path, position, newName, requestId),
    'language.applyEdits': ({ previewId }) => service.applyEdits(previewId),
    'language.documentSymbols': ({ path }) => service.documentSymbols(path),
    'language.workspaceSymbols': ({ query, requestId }) => service.workspaceSymbols(query, requestId),
    'language.format': ({ path, range, tabSize, insertSpaces, requestId }) =>
      service.format(path, range, { tabSize, insertSpaces }, requestId),
    'language.codeActions': ({ path, range, only, requestId }) => service.codeActions(path, range, only, requestId),
    'language.cancel': ({ requestId }) => ({ cancelled: service.cancel(requestId) }),
    'language.status': () => service.getStatus(),
    'language.allDiagnostics': () => service.allDiagnostics(),
  };
  return handlers;
}

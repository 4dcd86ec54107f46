import * as lsp from 'vscode-languageserver-protocol/node';

/** What the server is told when it asks for a configuration section. */
export function pyrightSettings(
  section: string | undefined,
  settings: {
    interpreter: string | null;
    restricted: boolean;
    untrustedVenvs: string;
    extraPaths: string[];
    diagnosticsScope: 'openFiles' | 'workspace';
  },
): unknown {
  const analysis = {
    // src/ is on the kernel's and run-file's sys.path; pyright's autoSearchPaths adds it too, this makes it explicit.
    extraPaths: settings.extraPaths,
    autoSearchPaths: true,
    diagnosticMode: settings.diagnosticsScope === 'workspace' ? 'workspace' : 'openFilesOnly',
    useLibraryCodeForTypes: true,
  };
  // Untrusted: pyright runs the pythonPath it is given to learn its search paths, and a client venvPath wins over
  // the project's, so the project can name no program and no environment: Kiln's own interpreter, an empty venvPath.
  const python = {
    ...(settings.interpreter ? { pythonPath: settings.interpreter } : {}),
    ...(settings.restricted ? { venvPath: settings.untrustedVenvs } : {}),
    analysis,
  };
  if (section === 'python') return python;
  if (section === 'python.analysis') return analysis;
  if (section === 'pyright') return { disableOrganizeImports: false };
  return {};
}

/** What Kiln tells pyright it can do: utf-16 positions, no dynamic registration, edits as document changes. */
export const CLIENT_CAPABILITIES: lsp.ClientCapabilities = {
  general: { positionEncodings: ['utf-16'] },
  workspace: {
    configuration: true,
    workspaceFolders: true,
    didChangeWatchedFiles: { dynamicRegistration: true },
    symbol: { dynamicRegistration: false },
    workspaceEdit: { documentChanges: true },
  },
  textDocument: {
    synchronization: { didSave: false, dynamicRegistration: false },
    publishDiagnostics: { versionSupport: true, tagSupport: { valueSet: [1, 2] }, relatedInformation: false },
    completion: {
      completionItem: {
        snippetSupport: true,
        documentationFormat: ['markdown', 'plaintext'],
        insertReplaceSupport: false,
        resolveSupport: { properties: ['documentation', 'detail'] },
        tagSupport: { valueSet: [1] },
      },
      contextSupport: true,
    },
    hover: { contentFormat: ['markdown', 'plaintext'] },
    signatureHelp: {
      signatureInformation: {
        documentationFormat: ['markdown', 'plaintext'],
        parameterInformation: { labelOffsetSupport: true },
        activeParameterSupport: true,
      },
    },
    definition: { linkSupport: false },
    declaration: { linkSupport: false },
    typeDefinition: { linkSupport: false },
    references: {},
    documentSymbol: { hierarchicalDocumentSymbolSupport: true },
    rename: { prepareSupport: true },
    codeAction: {
      codeActionLiteralSupport: {
        codeActionKind: { valueSet: ['quickfix', 'refactor', 'source', 'source.organizeImports'] },
      },
    },
    formatting: {},
    rangeFormatting: {},
  },
};

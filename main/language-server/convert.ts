import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type * as lsp from 'vscode-languageserver-protocol';
import {
  CompletionKind,
  SymbolKind,
  type DiagnosticSeverity,
  type DocumentSymbol,
  type LspDiagnostic,
  type LspLocation,
  type Markup,
} from '../../shared/contract';

/** Workspace paths ↔ the server's file URIs; a URI outside the workspace has no path (it is not sent). */
export class UriMapper {
  constructor(private readonly root: string) {}

  toUri(rel: string): string {
    return pathToFileURL(path.join(this.root, rel)).href;
  }

  toPath(uri: string): string | null {
    if (!uri.startsWith('file:')) return null;
    const rel = path.relative(this.root, fileURLToPath(uri));
    if (rel.startsWith('..') || path.isAbsolute(rel)) return null;
    return rel.split(path.sep).join('/');
  }

  location(location: lsp.Location | lsp.LocationLink): LspLocation | null {
    const uri = 'targetUri' in location ? location.targetUri : location.uri;
    const range = 'targetUri' in location ? location.targetSelectionRange : location.range;
    const rel = this.toPath(uri);
    return rel === null ? null : { path: rel, range };
  }

  locations(result: lsp.Location | lsp.Location[] | lsp.LocationLink[] | null | undefined): LspLocation[] {
    if (!result) return [];
    const list: (lsp.Location | lsp.LocationLink)[] = Array.isArray(result) ? result : [result];
    return list.map((l) => this.location(l)).filter((l): l is LspLocation => l !== null);
  }
}

// LSP numbers kinds from 1 in the order of these enums (the contract keeps Monaco's names).
export const completionKind = (kind: number | undefined): CompletionKind =>
  CompletionKind.options[(kind ?? 1) - 1] ?? 'text';
export const symbolKind = (kind: number): SymbolKind => SymbolKind.options[kind - 1] ?? 'variable';

const SEVERITIES: DiagnosticSeverity[] = ['error', 'warning', 'information', 'hint'];

export function diagnostic(d: lsp.Diagnostic): LspDiagnostic {
  const tags = (d.tags ?? []).map((t): 'unnecessary' | 'deprecated' => (t === 1 ? 'unnecessary' : 'deprecated'));
  return {
    range: d.range,
    severity: SEVERITIES[(d.severity ?? 1) - 1] ?? 'error',
    message: typeof d.message === 'string' ? d.message : d.message.value,
    ...(d.source ? { source: d.source } : {}),
    ...(d.code !== undefined ? { code: String(d.code) } : {}),
    ...(tags.length ? { tags } : {}),
  };
}

export function toLspDiagnostic(d: LspDiagnostic): lsp.Diagnostic {
  return {
    range: d.range,
    severity: (SEVERITIES.indexOf(d.severity) + 1) as lsp.DiagnosticSeverity,
    message: d.message,
    source: d.source,
    code: d.code,
  };
}

export function markup(
  value: lsp.MarkupContent | lsp.MarkedString | lsp.MarkedString[] | undefined,
): Markup | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string') return { kind: 'markdown', value };
  if (Array.isArray(value)) {
    const parts = value.map((v) => (typeof v === 'string' ? v : '```' + v.language + '\n' + v.value + '\n```'));
    return parts.length ? { kind: 'markdown', value: parts.join('\n\n') } : undefined;
  }
  if ('kind' in value) return { kind: value.kind === 'markdown' ? 'markdown' : 'plaintext', value: value.value };
  return { kind: 'markdown', value: '```' + value.language + '\n' + value.value + '\n```' };
}

export function documentSymbols(result: (lsp.DocumentSymbol | lsp.SymbolInformation)[] | null): DocumentSymbol[] {
  if (!result) return [];
  const convert = (s: lsp.DocumentSymbol): DocumentSymbol => ({
    name: s.name,
    ...(s.detail ? { detail: s.detail } : {}),
    kind: symbolKind(s.kind),
    range: s.range,
    selectionRange: s.selectionRange,
    children: (s.children ?? []).map(convert),
  });
  return result.map((s) =>
    'location' in s
      ? {
          name: s.name,
          kind: symbolKind(s.kind),
          range: s.location.range,
          selectionRange: s.location.range,
          children: [],
        }
      : convert(s),
  );
}

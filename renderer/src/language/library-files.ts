import type { KilnBridge } from '../../../shared/contract';
import { isAbsolutePath } from '../../../shared/paths';
import { monaco } from '../editor';

/*
 * Library files (the standard library's stubs, site-packages) that a definition pointed at, outside the workspace.
 * They open in a read-only tab whose key is the file's absolute path (a workspace path is relative, POSIX),
 * which reads the file into a model of its own; peeks share one model per file, whose URI names the tab to open.
 * Main serves only the files its language server named.
 */

export const LIBRARY_SCHEME = 'kiln-library';

/** Whether a tab's path is a library file's (absolute: POSIX, a Windows drive or share) rather than a workspace path. */
export function isLibraryPath(path: string): boolean {
  return isAbsolutePath(path);
}

export function libraryUri(path: string): monaco.Uri {
  return monaco.Uri.from({ scheme: LIBRARY_SCHEME, path });
}

/** The peeks' model of a library file, read from main once; rejects when main does not serve it. */
export async function libraryModel(bridge: KilnBridge, path: string): Promise<monaco.editor.ITextModel> {
  const uri = libraryUri(path);
  const existing = monaco.editor.getModel(uri);
  if (existing) return existing;
  const { text } = await bridge.request('language.readLibraryFile', { path });
  return monaco.editor.getModel(uri) ?? monaco.editor.createModel(text, 'python', uri);
}

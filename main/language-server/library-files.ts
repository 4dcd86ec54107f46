import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as lsp from 'vscode-languageserver-protocol';
import type { LspLocation } from '../../shared/contract';
import { KilnError } from '../../shared/errors';
import { createLogger } from '../log';

const log = createLogger('language-server');

/** Library files are source or stubs; a bigger one is not shown (typeshed's largest stub is ~200 KB). */
const MAX_LIBRARY_FILE_BYTES = 8 * 1024 * 1024;
/** The places remembered; the oldest are let go (each F12 into a library adds at most one). */
const MAX_REMEMBERED = 500;

/**
 * Files outside the workspace that the language server pointed at (the standard library's stubs, site-packages),
 * which the renderer may read, read-only. There is no general "read any file" channel: a file is served only
 * after the server named it in a definition's answer, and only a Python source or stub file.
 */
export class LibraryFiles {
  private readonly known = new Set<string>();

  /** A server location outside the workspace as a library place; null when it is no readable Python file. */
  place(location: lsp.Location | lsp.LocationLink): LspLocation | null {
    const uri = 'targetUri' in location ? location.targetUri : location.uri;
    const range = 'targetUri' in location ? location.targetSelectionRange : location.range;
    if (!uri.startsWith('file:')) return null;
    const file = fileURLToPath(uri);
    if (!path.isAbsolute(file) || !/\.pyi?$/i.test(file) || file.includes('\0')) return null;
    this.known.delete(file);
    this.known.add(file);
    if (this.known.size > MAX_REMEMBERED) this.known.delete(this.known.values().next().value!);
    return { path: file, range, library: true };
  }

  async read(file: string): Promise<{ text: string }> {
    if (!this.known.has(file))
      throw new KilnError(
        'E_OUTSIDE_WORKSPACE',
        'Only library files the language server pointed at can be shown; go to the definition again.',
      );
    const info = await stat(file).catch(
      log.caught('a library file is gone since the server pointed at it; told as not found', null),
    );
    if (!info?.isFile()) throw new KilnError('E_NOT_FOUND', `${file} is no longer there.`);
    if (info.size > MAX_LIBRARY_FILE_BYTES)
      throw new KilnError('E_TOO_LARGE', `${file} is too large to show.`, {
        size: info.size,
        limit: MAX_LIBRARY_FILE_BYTES,
        confirmable: false,
      });
    return { text: await readFile(file, 'utf8') };
  }
}

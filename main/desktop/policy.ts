import { realpathSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { KilnError } from '../../shared/errors';
import type { PathGuard } from '../workspace';

/** At most this many rows go out in one OS drag: a selection of thousands is not a drag to another app. */
export const MAX_DRAG_FILES = 1000;

/**
 * The real paths of workspace entries for an OS drag, each resolved through the guard's lexical check and then
 * realpath'd, so a link leading out of the workspace never hands an outside file to another app. Synchronous on
 * purpose: the OS drag must start in the same turn, while the mouse button is still down. Anything not a list of
 * strings, or any path outside, refuses the whole drag (an empty list).
 */
export function dragPathsInside(guard: PathGuard, requested: unknown): string[] {
  if (!Array.isArray(requested) || requested.length === 0 || requested.length > MAX_DRAG_FILES) return [];
  const out: string[] = [];
  for (const rel of requested) {
    if (typeof rel !== 'string') return [];
    let real: string;
    try {
      real = realpathSync(guard.resolveLexically(rel));
    } catch {
      return [];
    }
    if (!guard.contains(real)) return [];
    out.push(real);
  }
  return out;
}

/** What "asks once per file type" keys on: the extension, or the whole name for a file without one (Makefile). */
export function fileTypeOf(name: string): string {
  const base = path.basename(name).toLowerCase();
  const ext = path.extname(base);
  return ext || base;
}

/** What Open with System Application hands to the OS, judged by what it is, not by the name it was asked by. */
export interface OpenWithSystemTarget {
  /** The real path: what is opened, and what was judged. */
  real: string;
  /** fileTypeOf the target (a link named notes.txt to run.sh is a ".sh"). */
  type: string;
  /** The entry as the operator named it, when it is a link to another name. */
  linkName?: string;
}

/**
 * Resolves an entry for Open with System Application: a link is followed to its final target, which must be
 * inside the workspace (E_OUTSIDE_WORKSPACE otherwise), and the target's type is what the decision keys on.
 */
export async function openWithSystemTarget(guard: PathGuard, rel: string): Promise<OpenWithSystemTarget> {
  const abs = guard.resolveLexically(rel);
  let real: string;
  try {
    real = await realpath(abs);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP')
      throw new KilnError('E_NOT_FOUND', `"${rel}" does not exist${code === 'ELOOP' ? ' (a link loop)' : ''}`);
    throw err;
  }
  if (!guard.contains(real)) {
    throw new KilnError(
      'E_OUTSIDE_WORKSPACE',
      `"${path.basename(abs)}" is a link to a file outside the workspace; Kiln does not open it with another program`,
    );
  }
  const linked = path.basename(real) !== path.basename(abs);
  return { real, type: fileTypeOf(real), ...(linked ? { linkName: path.basename(abs) } : {}) };
}

/**
 * Opening a file with the system's application can run a program (a script, a shortcut, a document with
 * macros). In a trusted workspace it opens; in an untrusted one Kiln asks once per file type, as VS Code asks
 * before opening an untrusted workspace's file externally, and a "yes" holds for that type in this folder.
 */
export function openWithSystemDecision(options: {
  trusted: boolean;
  type: string;
  approvedTypes: ReadonlySet<string>;
}): 'open' | 'ask' {
  return options.trusted || options.approvedTypes.has(options.type) ? 'open' : 'ask';
}

/** The question asked before opening a file of a new type from an untrusted folder; `linkName` when asked by a link. */
export function openWithSystemQuestion(name: string, type: string, linkName?: string) {
  const kind = type.startsWith('.') ? `"${type}" files` : `files named "${type}"`;
  const what = linkName ? `"${path.basename(name)}" (the link "${linkName}" leads to it)` : `"${path.basename(name)}"`;
  return {
    message: `Open ${what} with the system's application?`,
    detail:
      `This folder is not trusted. Opening a file outside Kiln hands it to another program, which may run code ` +
      `from it. Kiln asks once for ${kind} in this folder.`,
    buttons: ['Open', 'Cancel'],
    defaultId: 1,
    cancelId: 1,
  };
}

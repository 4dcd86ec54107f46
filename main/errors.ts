import { KilnError, type ErrorCode, type WireError } from '../shared/errors';

/** Node's errno codes that have a meaning of their own for the operator, with the words for it. */
const ERRNO: Record<string, { code: ErrorCode; message: string }> = {
  ENOENT: { code: 'E_NOT_FOUND', message: 'No such file or folder' },
  EEXIST: { code: 'E_EXISTS', message: 'Already exists' },
  ENOTEMPTY: { code: 'E_EXISTS', message: 'Folder is not empty' },
  EACCES: { code: 'E_PERMISSION', message: 'Permission denied' },
  EPERM: { code: 'E_PERMISSION', message: 'Operation not permitted' },
  EROFS: { code: 'E_PERMISSION', message: 'Read-only file system' },
  ENOTDIR: { code: 'E_NOT_A_DIRECTORY', message: 'Not a folder' },
  EISDIR: { code: 'E_IS_A_DIRECTORY', message: 'Is a folder' },
  ENAMETOOLONG: { code: 'E_NAME_TOO_LONG', message: 'The name is too long for the file system' },
};

/** Turns anything thrown inside main into the wire shape, keeping internals (paths, stacks) out of the message. */
export function toWireError(err: unknown): WireError {
  if (err instanceof KilnError) return err.toWire();
  const errno = (err as NodeJS.ErrnoException | undefined)?.code;
  const known = errno && Object.hasOwn(ERRNO, errno) ? ERRNO[errno] : undefined;
  if (known) return { code: known.code, message: known.message };
  return { code: 'E_INTERNAL', message: err instanceof Error ? err.message : String(err) };
}

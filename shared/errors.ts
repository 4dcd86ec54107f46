import { z } from 'zod';

/** The fixed set of error codes that may cross the contract. Tests assert these. */
export const ERROR_CODES = [
  'E_BAD_REQUEST',
  'E_OUTSIDE_WORKSPACE',
  'E_NOT_FOUND',
  'E_EXISTS',
  'E_INTO_SELF',
  'E_NOT_A_DIRECTORY',
  'E_IS_A_DIRECTORY',
  'E_NOT_REGULAR_FILE',
  'E_NAME_TOO_LONG',
  'E_PERMISSION',
  'E_CHANGED_ON_DISK',
  'E_CANCELLED',
  'E_TIMEOUT',
  'E_INVALID_NOTEBOOK',
  'E_NO_JUPYTER',
  'E_KERNEL_DEAD',
  'E_NO_MODEL',
  'E_MODEL',
  'E_CONFIG',
  'E_BUSY',
  'E_TOO_LARGE',
  'E_INTERNAL',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export const WireErrorSchema = z.object({
  code: z.enum(ERROR_CODES),
  message: z.string(),
  details: z.unknown().optional(),
});
export type WireError = z.infer<typeof WireErrorSchema>;

/** An error a service raises on purpose; its code and message reach the UI unchanged. */
export class KilnError extends Error {
  readonly code: ErrorCode;
  readonly details?: unknown;
  constructor(code: ErrorCode, message: string, details?: unknown) {
    super(message);
    this.name = 'KilnError';
    this.code = code;
    this.details = details;
  }
}

const ERRNO_CODES: Record<string, ErrorCode> = {
  ENOENT: 'E_NOT_FOUND',
  EEXIST: 'E_EXISTS',
  ENOTEMPTY: 'E_EXISTS',
  EACCES: 'E_PERMISSION',
  EPERM: 'E_PERMISSION',
  EROFS: 'E_PERMISSION',
  ENOTDIR: 'E_NOT_A_DIRECTORY',
  EISDIR: 'E_IS_A_DIRECTORY',
  ENAMETOOLONG: 'E_NAME_TOO_LONG',
};

/** Turns anything thrown inside main into the wire shape, keeping internals out of the message. */
export function toWireError(err: unknown): WireError {
  if (err instanceof KilnError) {
    return err.details === undefined
      ? { code: err.code, message: err.message }
      : { code: err.code, message: err.message, details: err.details };
  }
  const errno = (err as SystemErrorLike | undefined)?.code;
  if (errno && ERRNO_CODES[errno]) {
    return { code: ERRNO_CODES[errno], message: describeErrno(err as SystemErrorLike) };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { code: 'E_INTERNAL', message };
}

/** The fields of a Node system error read here, named without Node's types (shared runs in the page too). */
interface SystemErrorLike {
  code?: string;
  message: string;
}

function describeErrno(err: SystemErrorLike): string {
  const what: Record<string, string> = {
    ENOENT: 'No such file or folder',
    EEXIST: 'Already exists',
    ENOTEMPTY: 'Folder is not empty',
    EACCES: 'Permission denied',
    EPERM: 'Operation not permitted',
    EROFS: 'Read-only file system',
    ENOTDIR: 'Not a folder',
    EISDIR: 'Is a folder',
    ENAMETOOLONG: 'The name is too long for the file system',
  };
  return what[err.code ?? ''] ?? err.message;
}

/** Rebuilds a KilnError on the calling side of the boundary. */
export function fromWireError(wire: WireError): KilnError {
  return new KilnError(wire.code, wire.message, wire.details);
}

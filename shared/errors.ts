import { z } from 'zod';

const Hash = z.string();

/**
 * Every error code that may cross the contract, each defined once: a short human title the UI can show
 * above the message, and the shape of its `details` (`z.never()`: the code carries none). Tests assert codes.
 */
export const ERRORS = {
  E_BAD_REQUEST: {
    title: 'Bad request',
    // edit-file: how often the text to replace occurs (0 or more than 1).
    details: z.object({ matches: z.number().int() }),
  },
  E_OUTSIDE_WORKSPACE: { title: 'Outside the workspace', details: z.never() },
  E_NOT_FOUND: {
    title: 'Not found',
    details: z.object({ path: z.string(), notebook: z.string(), cellId: z.string() }).partial(),
  },
  E_EXISTS: { title: 'Already exists', details: z.never() },
  E_INTO_SELF: { title: 'Cannot move a folder into itself', details: z.never() },
  E_NOT_A_DIRECTORY: { title: 'Not a folder', details: z.never() },
  E_IS_A_DIRECTORY: { title: 'Is a folder', details: z.never() },
  E_NOT_REGULAR_FILE: { title: 'Not a regular file', details: z.never() },
  E_NAME_TOO_LONG: { title: 'Name too long', details: z.never() },
  E_PERMISSION: {
    title: 'Permission denied',
    // A delete where the OS has no trash: only a permanent delete can go ahead.
    details: z.object({ noTrash: z.literal(true) }),
  },
  E_CHANGED_ON_DISK: {
    title: 'Changed on disk',
    // What the writer expected (baselineHash) and what is there now (diskHash, null when deleted).
    details: z.object({ path: z.string(), diskHash: Hash.nullable(), baselineHash: Hash }),
  },
  E_CANCELLED: { title: 'Cancelled', details: z.never() },
  E_TIMEOUT: { title: 'Timed out', details: z.never() },
  E_INVALID_NOTEBOOK: { title: 'Not a valid notebook', details: z.object({ reason: z.string() }) },
  // A notebook whose file holds git conflict markers (a merge left it so): its three versions are in git's index.
  E_NOTEBOOK_CONFLICT: { title: 'Notebook has merge conflicts', details: z.object({ path: z.string() }) },
  // Undo of an agent's cell change the operator edited since on the same lines: undoing would lose their edit.
  E_EDITED_SINCE: { title: 'Edited since', details: z.object({ path: z.string(), cells: z.array(z.number()) }) },
  E_NO_JUPYTER: { title: 'Jupyter is not available', details: z.never() },
  // Agent code in an untrusted folder on a machine without a sandbox (bubblewrap, user namespaces).
  E_NO_SANDBOX: { title: 'No sandbox for agent code', details: z.never() },
  // An agent verb on a path agents may not change or read (.kiln/, .git/, scripts/, Kiln's data, a home's secrets).
  E_PROTECTED: { title: 'Protected path', details: z.object({ path: z.string(), why: z.string() }) },
  // A kernel (the folder's code) asked for in a folder the operator has not trusted.
  E_UNTRUSTED: { title: 'This folder is not trusted', details: z.never() },
  E_KERNEL_DEAD: { title: 'The kernel died', details: z.never() },
  E_NO_MODEL: { title: 'No model', details: z.never() },
  E_MODEL: {
    title: 'The model run failed',
    // The model server's HTTP status, and what the transport said underneath (for the log, not the UI).
    details: z.object({ status: z.number().int(), cause: z.string() }).partial(),
  },
  E_CONFIG: { title: 'Config problem', details: z.never() },
  E_BUSY: { title: 'Already running', details: z.never() },
  E_TOO_LARGE: {
    title: 'File too large',
    // confirmable: the operator may go ahead anyway (over the soft limit, under the hard one).
    details: z.object({ size: z.number(), limit: z.number(), confirmable: z.boolean() }),
  },
  E_SHUTTING_DOWN: { title: 'Kiln is shutting down', details: z.never() },
  E_DISCONNECTED: { title: 'Lost the connection to Kiln', details: z.never() },
  E_INTERNAL: { title: 'Error', details: z.never() },
} as const satisfies Record<string, { title: string; details: z.ZodType }>;

export type ErrorCode = keyof typeof ERRORS;

export const ERROR_CODES = Object.keys(ERRORS) as [ErrorCode, ...ErrorCode[]];

/** The `details` a given code carries (`never` for codes that carry none). */
export type ErrorDetails<C extends ErrorCode> = z.infer<(typeof ERRORS)[C]['details']>;

/** The short human title for a code, shown above (or instead of) the message. */
export function errorTitle(code: ErrorCode): string {
  return ERRORS[code].title;
}

export const WireErrorSchema = z.object({
  code: z.enum(ERROR_CODES),
  message: z.string(),
  details: z.unknown().optional(),
});
export type WireError = z.infer<typeof WireErrorSchema>;

/** An error a service raises on purpose; its code, message and details reach the UI unchanged. */
export class KilnError<C extends ErrorCode = ErrorCode> extends Error {
  readonly code: C;
  readonly details?: ErrorDetails<C>;
  constructor(code: C, message: string, details?: ErrorDetails<C>) {
    super(message);
    this.name = 'KilnError';
    this.code = code;
    this.details = details;
  }

  /** The wire shape; details are left out when there are none. */
  toWire(): WireError {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details };
  }
}

/** True when `err` is a KilnError with this code; its `details` are then typed for that code. */
export function isKilnError<C extends ErrorCode>(err: unknown, code: C): err is KilnError<C> {
  return err instanceof KilnError && err.code === code;
}

/** Rebuilds a KilnError on the calling side of the boundary; details that do not fit their code's shape are dropped. */
export function fromWireError(wire: WireError): KilnError {
  const details = wire.details === undefined ? undefined : ERRORS[wire.code].details.safeParse(wire.details);
  return new KilnError(
    wire.code,
    wire.message,
    details?.success ? (details.data as ErrorDetails<ErrorCode>) : undefined,
  );
}

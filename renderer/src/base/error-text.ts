import { KilnError, errorTitle, type ErrorCode } from '../../../shared/errors';

/** A thrown value as the UI shows it: its code (what tests and styling read) and its text. */
export interface ShownError {
  code: ErrorCode;
  message: string;
  details?: unknown;
}

/**
 * Codes about Kiln itself rather than the operation that met them: whichever layer raised one, the
 * operator reads what happened to Kiln and what to do about it.
 */
const ABOUT_KILN = {
  E_SHUTTING_DOWN: `${errorTitle('E_SHUTTING_DOWN')}; nothing more runs in this window.`,
  E_DISCONNECTED: `${errorTitle('E_DISCONNECTED')}; reload the window to reconnect.`,
} satisfies Partial<Record<ErrorCode, string>>;

/** What the window says when Kiln itself went away (the connection line), in the same words as any failed request. */
export function aboutKiln(code: keyof typeof ABOUT_KILN): string {
  return ABOUT_KILN[code];
}

/** What the operator can do next, said after the service's own message. */
const NEXT_STEP = {
  E_NOTEBOOK_CONFLICT: 'Resolve its conflicts cell by cell (ours, theirs or both), then save it.',
} satisfies Partial<Record<ErrorCode, string>>;

/** The one way a wire error (or anything thrown) becomes UI text. */
export function shownError(err: unknown): ShownError {
  if (err instanceof KilnError) {
    const code: ErrorCode = err.code;
    const next = (NEXT_STEP as Partial<Record<ErrorCode, string>>)[code];
    return {
      code,
      message:
        (ABOUT_KILN as Partial<Record<ErrorCode, string>>)[code] ?? (next ? `${err.message}. ${next}` : err.message),
      details: err.details,
    };
  }
  return { code: 'E_INTERNAL', message: err instanceof Error ? err.message : String(err) };
}

/** The text for a toast or a status line; `failed` says what could not be done ("Could not save a.txt"). */
export function errorText(err: unknown, failed?: string): string {
  const { message } = shownError(err);
  return failed ? `${failed}: ${message}` : message;
}

import { APICallError, LoadAPIKeyError } from 'ai';
import { KilnError } from '../../shared/errors';

export interface ModelTarget {
  alias: string;
  model: string;
  baseUrl?: string;
}

function where(target: ModelTarget): string {
  return target.baseUrl ? ` at ${target.baseUrl}` : '';
}

function causeText(err: unknown): string {
  const parts: string[] = [];
  let current: unknown = err;
  for (let depth = 0; current && depth < 4; depth++) {
    if (current instanceof Error) {
      parts.push(`${(current as NodeJS.ErrnoException).code ?? ''} ${current.message}`);
      current = (current as { cause?: unknown }).cause;
    } else {
      parts.push(String(current));
      break;
    }
  }
  return parts.join(' | ');
}

/** Turns whatever a provider threw into one message an operator can act on (code E_MODEL or E_NO_MODEL). */
export function describeModelError(err: unknown, target: ModelTarget, streamedSomething: boolean): KilnError {
  if (err instanceof KilnError) return err;
  const name = `'${target.alias}' (${target.model})`;
  if (LoadAPIKeyError.isInstance(err)) {
    return new KilnError(
      'E_NO_MODEL',
      `No API key for model ${name}: set api_key_env in the config and that environment variable. ${err.message}`,
    );
  }
  if (APICallError.isInstance(err)) {
    const status = err.statusCode;
    const serverSays = err.message ? ` Server says: ${err.message}` : '';
    if (status === 401 || status === 403) {
      return new KilnError(
        'E_MODEL',
        `The model server refused the API key for ${name} (HTTP ${status}). Check the environment variable named by api_key_env.${serverSays}`,
        { status },
      );
    }
    if (status === 404) {
      return new KilnError(
        'E_MODEL',
        `Unknown model ${name}${where(target)} (HTTP 404): check the model id in the config.${serverSays}`,
        { status },
      );
    }
    if (status !== undefined && status >= 200 && status < 300) {
      // The reply started fine and broke while being read: a cut stream.
      return new KilnError(
        'E_MODEL',
        `The connection to the model server was cut before the reply finished (${name}). Nothing was changed; try again.`,
        { status, cause: causeText(err) },
      );
    }
    if (status !== undefined) {
      return new KilnError('E_MODEL', `The model server answered HTTP ${status} for ${name}.${serverSays}`, { status });
    }
  }
  const cause = causeText(err);
  if (
    /ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ENETUNREACH|ECONNRESET before|bad port|fetch failed/i.test(cause) &&
    !/other side closed|terminated/i.test(cause)
  ) {
    return new KilnError('E_MODEL', `Could not reach the model server for ${name}${where(target)}. Is it running?`, {
      cause,
    });
  }
  if (streamedSomething || /other side closed|terminated|socket|ECONNRESET|premature|aborted/i.test(cause)) {
    return new KilnError(
      'E_MODEL',
      `The connection to the model server was cut before the reply finished (${name}). Nothing was changed; try again.`,
      { cause },
    );
  }
  return new KilnError(
    'E_MODEL',
    `The model call failed for ${name}: ${err instanceof Error ? err.message : String(err)}`,
    { cause },
  );
}

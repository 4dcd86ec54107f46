import type { z } from 'zod';
import { KilnError } from '../shared/errors';
import { toWireError } from './errors';
import { requests, type Envelope, type ParsedArgs, type RequestChannel, type RequestResult } from '../shared/contract';

/** One handler per request channel; TypeScript makes the table complete. */
export type Handlers = {
  [C in RequestChannel]: (args: ParsedArgs<C>) => Promise<RequestResult<C>> | RequestResult<C>;
};

/** A subset of the table, for a domain module to contribute its own channels. */
export type HandlersFor<C extends RequestChannel> = Pick<Handlers, C>;

/**
 * The edge of main: validate a request against the contract, then call its handler.
 * A malformed request never reaches a service. Both hosts send every request through here.
 */
export async function dispatch(handlers: Handlers, channel: unknown, rawArgs: unknown): Promise<Envelope<unknown>> {
  try {
    if (typeof channel !== 'string' || !Object.hasOwn(requests, channel)) {
      throw new KilnError('E_BAD_REQUEST', `Unknown channel: ${String(channel)}`);
    }
    const name = channel as RequestChannel;
    const spec = requests[name] as { args: z.ZodType };
    const parsed = spec.args.safeParse(rawArgs ?? {});
    if (!parsed.success) throw new KilnError('E_BAD_REQUEST', describeIssues(name, parsed.error));
    const handler = handlers[name] as (args: unknown) => unknown;
    const value = await handler(parsed.data);
    return { ok: true, value };
  } catch (err) {
    return { ok: false, error: toWireError(err) };
  }
}

function describeIssues(channel: string, error: z.ZodError): string {
  const parts = error.issues.map((issue) => {
    const field = issue.path.length ? issue.path.join('.') : '(args)';
    return `${field}: ${issue.message}`;
  });
  return `Bad request to ${channel}: ${parts.join('; ')}`;
}

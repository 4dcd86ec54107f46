import type { z } from 'zod';
import type { verbsRequests } from '../../shared/contract/verbs';
import type { Verbs } from './verbs';

type VerbsChannel = keyof typeof verbsRequests;

/** Same shape as `HandlersFor<VerbsChannel>` from ../router once the verbs table is composed into the contract. */
export type VerbsHandlers = {
  [C in VerbsChannel]: (
    args: z.output<(typeof verbsRequests)[C]['args']>,
  ) => Promise<z.output<(typeof verbsRequests)[C]['result']>> | z.output<(typeof verbsRequests)[C]['result']>;
};

/** The verbs' channels, for the UI: `verbs.list` and `verbs.call` (args already validated by dispatch). */
export function verbsHandlers(verbs: Verbs): VerbsHandlers {
  return {
    'verbs.list': () => ({ verbs: verbs.list() }),
    'verbs.call': ({ verb, args }) => verbs.call(verb, args),
  };
}

import type { verbsRequests } from '../../shared/contract/verbs';
import type { HandlersFor } from '../router';
import type { Verbs } from './verbs';

/** The verbs' channels, for the UI: `verbs.list`, `verbs.sandbox` and `verbs.call` (args already validated by dispatch). */
export function verbsHandlers(verbs: Verbs): HandlersFor<keyof typeof verbsRequests> {
  return {
    'verbs.list': () => ({ verbs: verbs.list() }),
    'verbs.sandbox': async () => {
      const status = await verbs.sandbox.status();
      return { available: status.available, reason: status.reason };
    },
    'verbs.call': ({ verb, args }) => verbs.call(verb, args),
  };
}

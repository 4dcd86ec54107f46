import type { EventChannel, EventPayload, KilnBridge, RequestArgs, RequestChannel, RequestResult } from '../../shared/contract';
import { fromWireError } from '../../shared/errors';
import { dispatch } from '../router';
import type { Services } from '../services';

/**
 * The contract bound straight onto a service graph in the same process: the renderer's stores run
 * against the real services in tests, with the same validation the hosts apply.
 */
export function inProcessBridge(services: Services): KilnBridge {
  return {
    transport: 'in-process',
    async request<C extends RequestChannel>(channel: C, args: RequestArgs<C>): Promise<RequestResult<C>> {
      const envelope = await dispatch(services.handlers, channel, args);
      if (!envelope.ok) throw fromWireError(envelope.error);
      return envelope.value as RequestResult<C>;
    },
    on<E extends EventChannel>(channel: E, listener: (payload: EventPayload<E>) => void) {
      const subscription = services.hub.onEvent((event) => {
        if (event.channel === channel) listener(event.payload as EventPayload<E>);
      });
      return () => void subscription.dispose();
    },
  };
}

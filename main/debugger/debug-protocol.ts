import type { Kernel, KernelMessage } from '@jupyterlab/services';
import { Emitter, type Event } from '../../shared/base/event';
import type { IDisposable } from '../../shared/base/lifecycle';
import { KilnError } from '../../shared/errors';
import { logListenerError } from '../events';

/** How long a debug request may go unanswered: a remote server that does not forward control messages never answers. */
export const DEBUG_REQUEST_TIMEOUT_MS = 10_000;

/** A Debug Adapter Protocol event as ipykernel publishes it in a debug_event on IOPub. */
export interface DapEvent {
  event: string;
  body?: Record<string, unknown>;
}

interface DapResponse {
  success: boolean;
  message?: string;
  body?: Record<string, unknown>;
}

/** The adapter answered a request with success: false (an evaluate's error, a refused step). */
export class DebugRefusal extends KilnError {
  constructor(
    command: string,
    readonly adapterMessage: string,
  ) {
    super('E_BAD_REQUEST', `The debugger refused "${command}": ${adapterMessage}`);
  }
}

/** Why a debug request did not get an answer (the kernel, or the server between, never replied). */
export class DebugRequestTimeout extends KilnError {
  constructor(command: string) {
    super('E_TIMEOUT', `The kernel did not answer the debugger's "${command}" request`);
  }
}

/**
 * The Jupyter debug protocol on one kernel connection: DAP requests in debug_request on the control channel
 * (so they are answered while a cell runs or is paused), DAP events from debug_event on IOPub. This is what
 * JupyterLab's debugger speaks through @jupyterlab/services; ipykernel relays it to debugpy.
 */
export class DebugProtocol implements IDisposable {
  private seq = 1;
  private readonly events = new Emitter<DapEvent>({ onListenerError: logListenerError });
  readonly onEvent: Event<DapEvent> = this.events.event;
  private readonly onIopub = (_sender: unknown, msg: KernelMessage.IIOPubMessage): void => {
    if (msg.header.msg_type !== 'debug_event') return;
    this.events.fire(msg.content as unknown as DapEvent);
  };

  constructor(readonly kernel: Kernel.IKernelConnection) {
    kernel.iopubMessage.connect(this.onIopub);
  }

  /** Sends one DAP request and returns its body; a refusal is E_BAD_REQUEST with the adapter's message. */
  async request<T = Record<string, unknown>>(
    command: string,
    args: Record<string, unknown> = {},
    timeoutMs = DEBUG_REQUEST_TIMEOUT_MS,
  ): Promise<T> {
    const future = this.kernel.requestDebug({ seq: this.seq++, type: 'request', command, arguments: args });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const reply = new Promise<KernelMessage.IDebugReplyMsg>((resolve, reject) => {
      // The reply is enough: waiting for the kernel's idle after it (future.done) adds a round for nothing.
      future.onReply = resolve;
      timer = setTimeout(() => reject(new DebugRequestTimeout(command)), timeoutMs);
    });
    // The future's own end (its idle, or its disposal with the kernel) is not ours to report: the reply decides.
    future.done.catch((err: unknown) => console.debug('[kiln] a debug request future ended without its idle', err));
    try {
      const content = (await reply).content as unknown as DapResponse;
      if (!content.success) throw new DebugRefusal(command, content.message ?? 'no reason given');
      return (content.body ?? {}) as T;
    } finally {
      clearTimeout(timer);
    }
  }

  dispose(): void {
    this.kernel.iopubMessage.disconnect(this.onIopub);
    this.events.dispose();
  }
}

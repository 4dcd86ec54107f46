import type { Kernel, KernelConnection, KernelMessage } from '@jupyterlab/services';
import { Emitter, type Event } from '../../shared/base/event';
import { logListenerError } from '../events';

/** What one execution reports back (outputs arrive separately through `output`). */
export interface ExecutionReply {
  status: 'ok' | 'error' | 'aborted';
  executionCount: number | null;
  /** Pager payloads (e.g. from `obj?`), shown as outputs as JupyterLab does. */
  pages: Record<string, unknown>[];
  /** Why an execution was aborted, when it was. */
  reason?: string;
  /** The execute_reply's header date and ipykernel's `started` metadata (ISO), for recorded timing. */
  replyDate?: string;
  replyStarted?: string;
}

export interface ExecuteOptions {
  allowStdin?: boolean;
  /** Receives every IOPub message that belongs to this execution (stream, display_data, update_display_data, execute_result, error, clear_output). */
  onOutput: (msg: KernelMessage.IIOPubMessage) => void;
  onInputRequest?: (prompt: string, password: boolean) => void;
  /** This execution's status and execute_input messages on IOPub: 'status.busy', 'execute_input', 'status.idle', with the message's date. */
  onTiming?: (label: string, date: string) => void;
}

/** IOPub messages not tied to a running execution of ours: update_display_data from threads, or from other clients. */
export type StrayOutput = KernelMessage.IIOPubMessage;

export interface SentExecution {
  kernel: KernelConnection;
  future: Kernel.IShellFuture<KernelMessage.IExecuteRequestMsg, KernelMessage.IExecuteReplyMsg>;
}

interface PendingExecution {
  msgId: string;
  options: ExecuteOptions;
  abort: (reason: string) => void;
  /** The kernel started running it (its execute_input). */
  markStarted: () => void;
}

/** How long an interrupt waits for our cell to start at the kernel: a completion ahead of it may take its 5 s bound. */
const INTERRUPT_START_WAIT_MS = 6_000;

/** Sends one execute request; the reply is awaited by `Executions.await`. */
export function sendExecute(kernel: KernelConnection, code: string, options: ExecuteOptions): SentExecution {
  // Kiln sends one execution at a time and stops a batch itself on error; the kernel's own stop_on_error
  // would also abort the next request if it lands in the moment after an error reply.
  const future = kernel.requestExecute(
    { code, silent: false, store_history: true, allow_stdin: options.allowStdin ?? true, stop_on_error: false },
    true,
  );
  return { kernel, future };
}

/**
 * A kernel session's executions in flight: those not started at the kernel yet, those awaiting their reply (with
 * the IOPub messages routed to them), and the input() prompt one of them waits on.
 */
export class Executions {
  private readonly ended = new Emitter<void>({ onListenerError: logListenerError });
  /** An execution of ours ended (answered, aborted or failed): the kernel's shell may be free. */
  readonly onEnded: Event<void> = this.ended.event;
  private readonly pending = new Map<string, PendingExecution>();
  /** Our executions the kernel has not started yet (being sent, or queued behind a completion): each settles when it does or ends. */
  private readonly unstarted = new Set<Promise<void>>();
  private pendingInput: { parent: KernelMessage.IHeader<'input_request'>; kernel: KernelConnection } | null = null;

  /** An execution begins: `markStarted` when the kernel starts it, `end` when it is over either way. */
  begin(): { markStarted: () => void; end: () => void } {
    let markStarted = () => {};
    const started = new Promise<void>((resolve) => (markStarted = resolve));
    this.unstarted.add(started);
    return {
      markStarted: () => markStarted(),
      end: () => {
        markStarted();
        this.unstarted.delete(started);
      },
    };
  }

  /** Waits (at most `boundMs`) for the executions not started yet to start; false when there were none. */
  async untilStarted(boundMs = INTERRUPT_START_WAIT_MS): Promise<boolean> {
    const notStarted = [...this.unstarted];
    if (!notStarted.length) return false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, boundMs)));
    await Promise.race([Promise.all(notStarted), bound]);
    clearTimeout(timer);
    return true;
  }

  async await(
    { kernel, future }: SentExecution,
    options: ExecuteOptions,
    markStarted: () => void,
  ): Promise<ExecutionReply> {
    const msgId = future.msg.header.msg_id;
    let abortReason: string | null = null;
    const aborted = new Promise<void>((resolve) => {
      this.pending.set(msgId, {
        msgId,
        options,
        abort: (reason) => {
          abortReason = reason;
          resolve();
        },
        markStarted,
      });
    });
    future.onStdin = (msg) => {
      if (msg.header.msg_type !== 'input_request') return;
      const content = msg.content as KernelMessage.IInputRequestMsg['content'];
      this.pendingInput = { parent: msg.header as KernelMessage.IHeader<'input_request'>, kernel };
      options.onInputRequest?.(content.prompt, content.password);
    };
    try {
      // expected: a rejected reply (the kernel went away) is handled just below, as a run that did not complete
      const reply = await Promise.race([future.done.catch(() => null), aborted.then(() => null)]);
      if (!reply || abortReason !== null) {
        return {
          status: 'aborted',
          executionCount: null,
          pages: [],
          reason: abortReason ?? 'The execution was cut off (kernel restarted or disconnected)',
        };
      }
      const content = reply.content as
        KernelMessage.IExecuteReply | KernelMessage.IReplyErrorContent | KernelMessage.IReplyAbortContent;
      const status = content.status === 'ok' ? 'ok' : content.status === 'error' ? 'error' : 'aborted';
      const executionCount =
        'execution_count' in content && typeof content.execution_count === 'number' ? content.execution_count : null;
      const pages: Record<string, unknown>[] = [];
      if (content.status === 'ok') {
        for (const payload of (content as KernelMessage.IExecuteReply).payload ?? []) {
          if (payload.source === 'page' && payload.data && typeof payload.data === 'object')
            pages.push(payload.data as Record<string, unknown>);
        }
      }
      const started = (reply.metadata as { started?: unknown } | undefined)?.started;
      return {
        status,
        executionCount,
        pages,
        replyDate: reply.header.date || undefined,
        replyStarted: typeof started === 'string' ? started : undefined,
      };
    } finally {
      this.pending.delete(msgId);
      if (this.pendingInput?.kernel === kernel) this.pendingInput = null;
      future.dispose();
      this.ended.fire();
    }
  }

  /** Routes one IOPub message of the session's kernel to its execution; `stray` gets outputs of none of ours. */
  route(msg: KernelMessage.IIOPubMessage, stray: (msg: StrayOutput) => void): void {
    const parentId = (msg.parent_header as Partial<KernelMessage.IHeader>)?.msg_id;
    const pending = parentId ? this.pending.get(parentId) : undefined;
    const type = msg.header.msg_type;
    if (pending && type === 'execute_input') pending.markStarted();
    if (pending && (type === 'status' || type === 'execute_input')) {
      const label =
        type === 'status' ? `status.${(msg.content as { execution_state?: string }).execution_state}` : type;
      pending.options.onTiming?.(label, msg.header.date || new Date().toISOString());
    }
    // debug_event belongs to the debugger (main/debugger listens on the connection itself), not to any output.
    if (type === 'status' || type === 'execute_input' || type === 'debug_event' || type.startsWith('comm_')) return;
    if (pending) pending.options.onOutput(msg);
    else stray(msg);
  }

  /**
   * One of our executions is at the kernel. The kernel's own status is no help here: ipykernel also reports
   * busy and idle around control-channel requests, so it can say idle while a cell runs.
   */
  get executing(): boolean {
    return this.pending.size > 0;
  }

  /** Answers the pending input() prompt; false when nothing is waiting. */
  sendInputReply(value: string): boolean {
    const waiting = this.pendingInput;
    if (!waiting || waiting.kernel.isDisposed) return false;
    this.pendingInput = null;
    waiting.kernel.sendInputReply({ status: 'ok', value }, waiting.parent);
    return true;
  }

  /** The kernel is gone: no input() prompt of it can be answered. */
  forgetInput(): void {
    this.pendingInput = null;
  }

  abortAll(reason: string): void {
    for (const pending of [...this.pending.values()]) pending.abort(reason);
    this.pending.clear();
    this.pendingInput = null;
  }

  dispose(): void {
    this.ended.dispose();
  }
}

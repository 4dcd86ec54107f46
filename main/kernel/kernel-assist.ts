import type { Kernel, KernelMessage } from '@jupyterlab/services';
import type { AssistMiss, CompleteResult, CompletionType, InspectResult } from '../../shared/contract';
import type { Event } from '../../shared/base/event';
import { createLogger } from '../log';

const log = createLogger('kernel.assist');
// A kernel restarting or gone fails the request: the operator's view says unavailable, the log says why.
const noAnswer = log.caught('the kernel failed the request (restarting or gone): answered as unavailable', null);

/** How long a completion or inspection waits for a kernel that is running something before it answers 'busy' (docs/notebooks.md). */
export const ASSIST_TIMEOUT_MS = 1_500;
/** How long the kernel may take to answer once it has the request (a fresh kernel's first completion loads jedi: 1-2 s). */
export const ASSIST_ANSWER_MS = 5_000;

/** What the assist needs of a notebook's kernel session (KernelSession has it). */
export interface AssistTarget {
  /** The kernel that can answer now, or null (none, starting, dead, restarting, disconnected). */
  assistKernel(): Kernel.IKernelConnection | null;
  /** A cell of ours is running on it. */
  readonly executing: boolean;
  readonly onExecutionEnded: Event<void>;
}

export interface KernelAssistOptions {
  /** The notebook's kernel session, null before it has one. */
  target: () => AssistTarget | null;
  timeoutMs?: number;
  answerMs?: number;
}

/** Each kind has its own newest request; the variables view's two are kinds too (main/kernel/variables.ts). */
export type AssistKind = 'complete' | 'inspect' | VariablesKind | DataViewerKind;
/** The Variables view's requests (main/kernel/variables.ts): the listing, an expansion, a selected value. */
export type VariablesKind = 'variables' | 'expandVariable' | 'variableValue';
/** The data viewer's requests (main/kernel/data-viewer): a page, a column summary, an export. */
export type DataViewerKind = 'dataPage' | 'dataSummary' | 'dataExport';
const KINDS: readonly AssistKind[] = [
  'complete',
  'inspect',
  'variables',
  'expandVariable',
  'variableValue',
  'dataPage',
  'dataSummary',
  'dataExport',
];
const NO_KIND = <T>(value: T): Record<AssistKind, T> =>
  Object.fromEntries(KINDS.map((kind) => [kind, value])) as Record<AssistKind, T>;

/** JavaScript (UTF-16) offset -> the protocol's code points (Jupyter protocol 5.2). */
export function toCodePoints(text: string, offset: number): number {
  let points = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // The high half of a pair is counted with its low half.
    if (unit < 0xd800 || unit > 0xdbff || i + 1 >= offset) points++;
  }
  return points;
}

/** The protocol's code points -> a JavaScript (UTF-16) offset into `text`. */
export function fromCodePoints(text: string, points: number): number {
  let offset = 0;
  for (let seen = 0; seen < points && offset < text.length; seen++) {
    const unit = text.charCodeAt(offset);
    offset += unit >= 0xd800 && unit <= 0xdbff && offset + 1 < text.length ? 2 : 1;
  }
  return offset;
}

/**
 * Completion and inspection against one notebook's kernel, kept off the typing path's worst case.
 *
 * The kernel serves its shell channel one message at a time, so a complete_request sent while a cell runs
 * waits behind it, and a pile of them would also delay the next cell. So a request is sent only when the
 * kernel says idle and no earlier request of ours is still at the kernel; until then it waits, at most
 * `timeoutMs`, and then answers 'busy' (as it does when the kernel took longer than `answerMs` to answer). A newer request of the same kind replaces a waiting one
 * ('cancelled'): the operator's cursor has moved on.
 */
export class KernelAssist {
  private readonly timeoutMs: number;
  private readonly answerMs: number;
  /** The newest request of each kind; an older one that is still waiting gives up. */
  private readonly latest: Record<AssistKind, number> = NO_KIND(0);
  private readonly requestIds: Record<AssistKind, number | null> = NO_KIND(null);
  /** The request of ours the kernel has not answered yet (one at most), with the kernel it went to. */
  /** Ends the wait of the request of each kind that is waiting. */
  private readonly wakers: Record<AssistKind, (() => void) | null> = NO_KIND(null);
  private inFlight: { kernel: Kernel.IKernelConnection; settled: Promise<unknown> } | null = null;
  /** The ticket of each kind's request sent to the kernel last. */
  private readonly sentTicket: Record<AssistKind, number> = NO_KIND(0);

  constructor(private readonly options: KernelAssistOptions) {
    this.timeoutMs = options.timeoutMs ?? ASSIST_TIMEOUT_MS;
    this.answerMs = options.answerMs ?? ASSIST_ANSWER_MS;
  }

  async complete(code: string, cursor: number, requestId: number): Promise<CompleteResult> {
    const reply = await this.ask('complete', requestId, (kernel) =>
      kernel.requestComplete({ code, cursor_pos: toCodePoints(code, cursor) }),
    );
    if ('status' in reply) return reply;
    const content = reply.content;
    if (content.status !== 'ok')
      return { status: 'ok', matches: [], cursorStart: cursor, cursorEnd: cursor, types: [] };
    const types = (content.metadata?._jupyter_types_experimental ?? []) as unknown[];
    return {
      status: 'ok',
      matches: content.matches,
      cursorStart: fromCodePoints(code, content.cursor_start),
      cursorEnd: fromCodePoints(code, content.cursor_end),
      types: types.flatMap((t) => completionType(code, t)),
    };
  }

  async inspect(code: string, cursor: number, detailLevel: 0 | 1, requestId: number): Promise<InspectResult> {
    const reply = await this.ask('inspect', requestId, (kernel) =>
      kernel.requestInspect({ code, cursor_pos: toCodePoints(code, cursor), detail_level: detailLevel }),
    );
    if ('status' in reply) return reply;
    const content = reply.content;
    if (content.status !== 'ok') return { status: 'ok', found: false, data: {} };
    return { status: 'ok', found: content.found, data: content.found ? (content.data as Record<string, unknown>) : {} };
  }

  /**
   * Every request not sent yet gives up ('cancelled'): an interrupt is coming, and none should be sent into it.
   * One already at the kernel keeps its answer (the interrupt waits for the cell behind it to start).
   */
  abandonWaiting(): void {
    for (const kind of KINDS) {
      if (this.requestIds[kind] === null || this.sentTicket[kind] === this.latest[kind]) continue;
      this.latest[kind]++;
      this.requestIds[kind] = null;
      this.wakers[kind]?.();
    }
  }

  /** The request `requestId` gives up if it is still waiting; true when it was. */
  cancel(requestId: number): boolean {
    for (const kind of KINDS) {
      if (this.requestIds[kind] === requestId) {
        this.latest[kind]++;
        this.requestIds[kind] = null;
        this.wakers[kind]?.();
        return true;
      }
    }
    return false;
  }

  /**
   * Sends `send` to the kernel by the rules above (only when it is idle, no cell of ours runs and no request of
   * ours is at it; a newer request of the same kind replaces a waiting one), for other silent requests that
   * must not queue behind a cell either.
   */
  whenFree<R extends KernelMessage.IShellMessage | KernelMessage.IControlMessage>(
    kind: VariablesKind | DataViewerKind,
    requestId: number,
    send: (kernel: Kernel.IKernelConnection) => Promise<R>,
    bounds: { waitMs?: number; answerMs?: number } = {},
  ): Promise<R | AssistMiss> {
    return this.ask(kind, requestId, send, bounds);
  }

  private async ask<R extends KernelMessage.IShellMessage | KernelMessage.IControlMessage>(
    kind: AssistKind,
    requestId: number,
    send: (kernel: Kernel.IKernelConnection) => Promise<R>,
    bounds: { waitMs?: number; answerMs?: number } = {},
  ): Promise<R | AssistMiss> {
    const ticket = ++this.latest[kind];
    this.requestIds[kind] = requestId;
    // An older request still waiting stops now, not at the end of its bound.
    this.wakers[kind]?.();
    const deadline = Date.now() + (bounds.waitMs ?? this.timeoutMs);
    const current = () => this.latest[kind] === ticket;
    try {
      for (;;) {
        if (!current()) return { status: 'cancelled' };
        const target = this.options.target();
        const kernel = target?.assistKernel();
        if (!target || !kernel) return { status: 'unavailable' };
        const blocker = this.inFlight?.kernel === kernel ? this.inFlight.settled : null;
        const left = deadline - Date.now();
        if (!blocker && !target.executing && kernel.status === 'idle') break;
        if (left <= 0) return { status: 'busy' };
        await this.wait(kind, target, kernel, blocker, left);
      }
      const kernel = this.options.target()!.assistKernel()!;
      this.sentTicket[kind] = ticket;
      const answer = send(kernel);
      // expected: the caller gets the rejection from `answer`; this only marks the flight's end
      const settled = answer.catch(() => undefined);
      const flight = { kernel, settled };
      this.inFlight = flight;
      void settled.then(() => {
        if (this.inFlight === flight) this.inFlight = null;
      });
      const reply = await Promise.race([
        answer.catch(noAnswer),
        delay(bounds.answerMs ?? this.answerMs).then(() => 'late' as const),
      ]);
      if (reply === 'late') return { status: 'busy' };
      if (reply === null) return { status: 'unavailable' };
      return current() ? reply : { status: 'cancelled' };
    } finally {
      if (current()) this.requestIds[kind] = null;
    }
  }

  /**
   * Waits until the kernel may be free (its status changed, our cell ended, our request at it was answered), the
   * bound runs out, or a newer request of this kind replaces this one; leaves no listener behind.
   */
  private wait(
    kind: AssistKind,
    target: AssistTarget,
    kernel: Kernel.IKernelConnection,
    blocker: Promise<unknown> | null,
    ms: number,
  ) {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        kernel.statusChanged.disconnect(onStatus);
        void ended.dispose();
        if (this.wakers[kind] === done) this.wakers[kind] = null;
        resolve();
      };
      const onStatus = (_sender: unknown, status: string) => {
        if (status !== 'busy') done();
      };
      const timer = setTimeout(done, ms);
      kernel.statusChanged.connect(onStatus);
      const ended = target.onExecutionEnded(done);
      void blocker?.then(done);
      this.wakers[kind]?.();
      this.wakers[kind] = done;
    });
  }
}

function completionType(code: string, raw: unknown): CompletionType[] {
  if (!raw || typeof raw !== 'object') return [];
  const t = raw as { text?: unknown; type?: unknown; start?: unknown; end?: unknown; signature?: unknown };
  if (typeof t.text !== 'string' || typeof t.start !== 'number' || typeof t.end !== 'number') return [];
  return [
    {
      text: t.text,
      type: typeof t.type === 'string' ? t.type : null,
      start: fromCodePoints(code, t.start),
      end: fromCodePoints(code, t.end),
      ...(typeof t.signature === 'string' && t.signature ? { signature: t.signature } : {}),
    },
  ];
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref?.());
}

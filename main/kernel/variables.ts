import type { Kernel, KernelMessage } from '@jupyterlab/services';
import { z } from 'zod';
import {
  Variable,
  VARIABLE_CHILDREN_PAGE,
  type KernelInfo,
  type VariableChildrenResult,
  type VariableRef,
  type VariablesMiss,
  type VariablesResult,
  type VariableValueResult,
} from '../../shared/contract';
import type { AssistTarget, KernelAssist } from './kernel-assist';
import { canDebug, richInspect } from './variables-debugger';
import { VARIABLES_MODULE, VARIABLES_PY } from './variables-snippet';

/** The most variables one listing returns (the total says how many there were). */
export const VARIABLES_LIMIT = 5_000;
/** The mime type the kernel-side module answers in (a custom one: IPython puts it in the bundle as is). */
const MIME = 'application/vnd.kiln.variables+json';

export const NOT_PYTHON = 'Variables are shown for Python kernels';
/** The most of a printed value the view's value pane gets (pandas and NumPy bound it well below on their own). */
export const VALUE_TEXT_LIMIT = 50_000;

/** What the inspector needs of a notebook's kernel session (KernelSession has it). */
export interface VariablesTarget extends AssistTarget {
  readonly info: KernelInfo;
}

export interface VariablesInspectorOptions {
  /** The notebook's assist: variables requests are sent by its rules (never while a cell runs) and take turns with completions. */
  assist: KernelAssist;
  target: () => VariablesTarget | null;
}

const Listing = z.object({ variables: z.array(Variable), total: z.number().int() });
const Children = z.union([
  z.object({ children: z.array(Variable), total: z.number().int(), offset: z.number().int() }),
  z.object({ gone: z.literal(true) }),
]);

/**
 * The Variables view's requests to a notebook's live kernel.
 *
 * Each is one execute_request with empty code, `silent: true`, `store_history: false` and the inspection as a
 * user expression: IPython evaluates it without counting an execution, touching In/Out/_ or publishing anything,
 * and returns its value's mime bundle in the reply. The code lives in a private module in sys.modules, so the
 * operator's namespace gains no name. Why not the debugger's inspectVariables (as JupyterLab does): it needs
 * debugpy and a debug session started in the kernel (which changes how the kernel runs code), remote servers
 * may not forward debug messages, and it gives no shape or size; this works on any IPython kernel.
 */
export class VariablesInspector {
  /** Ids of our own requests: negative, so KernelAssist.cancel of a renderer's (positive) id never hits one. */
  private nextId = -1;

  constructor(private readonly options: VariablesInspectorOptions) {}

  /** The connection requests go to now, or null (tests watch what is sent on it). */
  connection(): Kernel.IKernelConnection | null {
    return this.options.target()?.assistKernel() ?? null;
  }

  /** The user's variables; with `all`, also modules, functions, classes and IPython's own names. */
  async list(all: boolean): Promise<VariablesResult> {
    const answer = await this.evaluate(
      'variables',
      `k.listing(__import__('IPython').get_ipython().user_ns, ${all ? 'True' : 'False'}, ${VARIABLES_LIMIT})`,
    );
    if ('status' in answer) return answer;
    const parsed = Listing.safeParse(answer.data);
    if (!parsed.success)
      return { status: 'error', message: 'The kernel answered the variables request in a form Kiln does not read' };
    return { status: 'ok', ...parsed.data };
  }

  /** The attributes, items or columns of the variable at `ref`, a page from `offset`. */
  async expand(ref: VariableRef, offset: number): Promise<VariableChildrenResult> {
    // A JSON string literal is a Python string literal too: the ref reaches the kernel as data, never as code.
    const refArg = `__import__('json').loads(${JSON.stringify(JSON.stringify(ref))})`;
    const answer = await this.evaluate(
      'expandVariable',
      `k.expand(__import__('IPython').get_ipython().user_ns, ${refArg}, ${offset}, ${VARIABLE_CHILDREN_PAGE})`,
    );
    if ('status' in answer) return answer;
    const parsed = Children.safeParse(answer.data);
    if (!parsed.success)
      return { status: 'error', message: 'The kernel answered the expand request in a form Kiln does not read' };
    if ('gone' in parsed.data) return { status: 'gone', message: `${ref[0]} is no longer in the kernel` };
    return { status: 'ok', ...parsed.data };
  }

  /**
   * The printed value of a top-level variable (the view asks it for a selected DataFrame, Series or array, whose
   * printing pandas and NumPy bound). Where the kernel can debug (learnt once per kernel), the debugger's
   * richInspectVariables answers it, as in JupyterLab; else the same IPython formatting as a silent user expression.
   */
  async value(name: string): Promise<VariableValueResult> {
    const target = this.options.target();
    const unavailable = whyUnavailable(target?.info ?? null);
    if (unavailable) return unavailable;
    const kernel = target?.assistKernel();
    if (!kernel) return missOf('unavailable', target?.info ?? null);
    const viaDebugger = await canDebug(kernel);
    const gone = { status: 'gone' as const, message: `${name} is no longer in the kernel` };
    let bundle: Record<string, unknown>;
    if (viaDebugger) {
      const reply = await this.options.assist.whenFree('variableValue', this.nextId--, (k) => richInspect(k, name));
      if ('status' in reply) return missOf(reply.status, this.options.target()?.info ?? null);
      const content = reply.content as { success?: boolean; body?: { data?: Record<string, unknown> } };
      if (!content.success) return { status: 'error', message: 'The kernel debugger refused richInspectVariables' };
      bundle = content.body?.data ?? {};
    } else {
      const reply = await this.options.assist.whenFree('variableValue', this.nextId--, (k) => execute(k, name));
      if ('status' in reply) return missOf(reply.status, this.options.target()?.info ?? null);
      if (reply.content.status !== 'ok')
        return { status: 'error', message: `The kernel refused the request (${reply.content.status})` };
      const value = reply.content.user_expressions.kiln as { status: string; data?: Record<string, unknown> };
      bundle = value?.status === 'ok' ? (value.data ?? {}) : {};
    }
    // richInspectVariables answers an empty bundle for a name the kernel no longer has, as the expression's NameError does.
    const text = bundle['text/plain'];
    if (typeof text !== 'string') return gone;
    return { status: 'ok', text: text.slice(0, VALUE_TEXT_LIMIT), route: viaDebugger ? 'debugger' : 'snippet' };
  }

  private async evaluate(
    kind: 'variables' | 'expandVariable',
    call: string,
  ): Promise<{ data: unknown } | VariablesMiss> {
    const target = this.options.target();
    const unavailable = whyUnavailable(target?.info ?? null);
    if (unavailable) return unavailable;
    const expression = `(lambda k: k.Answer(${call}))(${INSTALL})`;
    const reply = await this.options.assist.whenFree(kind, this.nextId--, (kernel) => execute(kernel, expression));
    if ('status' in reply) return missOf(reply.status, this.options.target()?.info ?? null);
    const content = reply.content;
    if (content.status !== 'ok')
      return { status: 'error', message: `The kernel refused the request (${content.status})` };
    const value = content.user_expressions.kiln as
      { status: 'ok'; data: Record<string, unknown> } | { status: 'error'; ename: string; evalue: string } | undefined;
    if (!value) return { status: 'error', message: 'The kernel did not evaluate the variables request' };
    if (value.status !== 'ok') return { status: 'error', message: `${value.ename}: ${value.evalue}` };
    if (!(MIME in value.data)) return { status: 'error', message: 'The kernel did not answer with variables' };
    return { data: value.data[MIME] };
  }
}

/** Installs the module once per kernel (or reuses it), all inside one expression: no statement, so no name is bound. */
const INSTALL =
  `(__import__('sys').modules.get('${VARIABLES_MODULE}') or (lambda m: (` +
  `__import__('sys').modules.__setitem__(m.__name__, m), exec(${JSON.stringify(VARIABLES_PY)}, m.__dict__), m)[2])` +
  `(__import__('types').ModuleType('${VARIABLES_MODULE}')))`;

export async function execute(
  kernel: Kernel.IKernelConnection,
  expression: string,
): Promise<KernelMessage.IExecuteReplyMsg> {
  const future = kernel.requestExecute(
    {
      code: '',
      silent: true,
      store_history: false,
      user_expressions: { kiln: expression },
      allow_stdin: false,
      stop_on_error: false,
    },
    true,
  );
  // The reply is the answer: waiting for the kernel's idle after it (future.done) adds a wake-up on IOPub, another
  // socket when Kiln talks ZMQ straight to the kernel, for nothing (KernelAssist waits for idle before the next one).
  const reply = new Promise<KernelMessage.IExecuteReplyMsg>((resolve, reject) => {
    future.onReply = resolve;
    future.done.then(
      () => reject(new Error('the kernel ended the request without a reply')),
      (err: unknown) => reject(err instanceof Error ? err : new Error(String(err))),
    );
  });
  try {
    return await reply;
  } finally {
    future.dispose();
  }
}

/** Why no kernel can be asked now, in words for the view; null when one may answer. */
export function whyUnavailable(info: KernelInfo | null): VariablesMiss | null {
  if (info?.language && info.language.toLowerCase() !== 'python') return { status: 'unsupported', message: NOT_PYTHON };
  switch (info?.status ?? 'none') {
    case 'none':
      return { status: 'unavailable', message: 'No kernel is running: run a cell to start one.' };
    case 'starting':
    case 'restarting':
      return { status: 'unavailable', message: 'The kernel is starting.' };
    case 'dead':
      return { status: 'unavailable', message: 'The kernel is dead: restart it to see its variables.' };
    case 'disconnected':
      return { status: 'unavailable', message: info?.message ?? 'The kernel cannot be reached.' };
    default:
      return null;
  }
}

export function missOf(status: 'busy' | 'cancelled' | 'unavailable', info: KernelInfo | null): VariablesMiss {
  if (status === 'busy') return { status, message: 'A cell is running: the variables show when it ends.' };
  if (status === 'cancelled') return { status, message: 'A newer request replaced this one.' };
  return whyUnavailable(info) ?? { status, message: 'The kernel cannot answer now.' };
}

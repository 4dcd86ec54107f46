import type { Kernel, KernelMessage } from '@jupyterlab/services';

/**
 * The kernel debugger's static requests for the Variables view. ipykernel ≥ 6 with debugpy answers
 * debugInfo, inspectVariables and richInspectVariables on the control channel without a debug session
 * started (they are its "static" debug requests, as JupyterLab's variable explorer uses them). A kernel
 * without debugpy answers a debug_request with an empty reply; one behind a server that does not forward
 * control messages never answers: both are "cannot debug", learnt once per kernel connection.
 */

/** How long detection waits for debugInfo: a server that does not forward debug messages never answers. */
export const DETECT_TIMEOUT_MS = 3_000;

interface DapReply {
  success?: boolean;
  body?: Record<string, unknown>;
}

const canDebugOf = new WeakMap<Kernel.IKernelConnection, Promise<boolean>>();
let seq = 1;

/** The DAP reply to one debug_request, as soon as it comes (its idle after adds nothing). */
export function debugRequest(
  kernel: Kernel.IKernelConnection,
  command: string,
  args: Record<string, unknown>,
): { reply: Promise<KernelMessage.IDebugReplyMsg>; dispose(): void } {
  const future = kernel.requestDebug({ seq: seq++, type: 'request', command, arguments: args });
  const reply = new Promise<KernelMessage.IDebugReplyMsg>((resolve, reject) => {
    future.onReply = resolve;
    // Disposed (kernel restarted) or ended without a reply: the request failed.
    future.done.then(
      () => reject(new Error(`the kernel ended the debug request "${command}" without a reply`)),
      (err: unknown) => reject(err instanceof Error ? err : new Error(String(err))),
    );
  });
  return { reply, dispose: () => future.dispose() };
}

/** Whether the kernel answers the debugger's static requests; asked once per kernel connection. */
export function canDebug(kernel: Kernel.IKernelConnection): Promise<boolean> {
  let known = canDebugOf.get(kernel);
  if (!known) {
    known = detect(kernel);
    canDebugOf.set(kernel, known);
  }
  return known;
}

async function detect(kernel: Kernel.IKernelConnection): Promise<boolean> {
  // Newer ipykernels say so in kernel_info; 6.17 (Debian 12's) does not, and is asked.
  // expected: a kernel that never answered kernel_info is asked with debugInfo just below
  const info = (await kernel.info.catch(() => null)) as { debugger?: boolean } | null;
  if (info?.debugger === false) return false;
  const request = debugRequest(kernel, 'debugInfo', {});
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const reply = await Promise.race([
      request.reply,
      new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), DETECT_TIMEOUT_MS))),
    ]);
    const content = reply?.content as DapReply | undefined;
    return content?.success === true && typeof content.body === 'object';
  } catch (err) {
    // A kernel that failed the request cannot debug: the snippet route serves it (said in the log).
    console.info('[kiln] variables: the kernel failed debugInfo, so its values are asked with the snippet', err);
    return false;
  } finally {
    clearTimeout(timer);
    request.dispose();
  }
}

/** richInspectVariables of a top-level name: its mime bundle as IPython formats it (the debugger's route). */
export async function richInspect(
  kernel: Kernel.IKernelConnection,
  name: string,
): Promise<KernelMessage.IDebugReplyMsg> {
  const request = debugRequest(kernel, 'richInspectVariables', { variableName: name });
  try {
    return await request.reply;
  } finally {
    request.dispose();
  }
}

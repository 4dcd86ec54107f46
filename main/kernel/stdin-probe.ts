import type { Kernel, KernelMessage } from '@jupyterlab/services';

/** What the probe needs of a kernel connection. */
export type ProbedKernel = Pick<
  Kernel.IKernelConnection,
  'requestExecute' | 'sendInputReply' | 'interrupt' | 'isDisposed'
>;

/** Resolves true once `promise` settles, false after `ms`. */
function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const gaveUp = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  const settled = promise.then(
    () => true,
    () => true,
  );
  return Promise.race([settled, gaveUp]).finally(() => clearTimeout(timer));
}

/**
 * After a (re)start the server's ZMQ channels reconnect each on its own timer, so stdin can come back
 * after the shell: an input_request the kernel sends before then is dropped, and input() waits forever.
 * A silent input() whose prompt must reach us proves the route; when it does not come, interrupt the
 * probe and ask again, waiting longer each time.
 */
export async function confirmStdinRoute(kernel: ProbedKernel): Promise<void> {
  for (let waitMs = 100; waitMs <= 3200; waitMs *= 2) {
    const future = kernel.requestExecute(
      { code: 'input()', silent: true, store_history: false, allow_stdin: true, stop_on_error: false },
      true,
    );
    const prompted = new Promise<void>((resolve) => {
      future.onStdin = (msg) => {
        if (msg.header.msg_type !== 'input_request') return;
        kernel.sendInputReply({ status: 'ok', value: '' }, msg.header as KernelMessage.IHeader<'input_request'>);
        resolve();
      };
    });
    // A reply without a prompt (a kernel without input()) also ends the probe: nothing to wait for.
    const routed = await settlesWithin(Promise.race([prompted, future.done]), waitMs);
    if (routed) await settlesWithin(future.done, 5_000);
    else await interruptUntilDone(kernel, future.done);
    future.dispose();
    if (routed || kernel.isDisposed) return;
  }
}

/**
 * A kernel ignores an interrupt that comes before it started running the probe (then waits in input()
 * for a reply that cannot come), so interrupt until the probe ends, waiting longer each time.
 */
async function interruptUntilDone(kernel: ProbedKernel, done: Promise<unknown>): Promise<void> {
  for (let waitMs = 250; waitMs <= 4000 && !kernel.isDisposed; waitMs *= 2) {
    // expected: an interrupt may fail while the kernel restarts; the loop tries again, waiting longer
    await kernel.interrupt().catch(() => undefined);
    if (await settlesWithin(done, waitMs)) return;
  }
}

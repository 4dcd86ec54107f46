import { KernelAPI } from '@jupyterlab/services';
import type { Kernel, KernelConnection } from '@jupyterlab/services';
import type { KernelStatus } from '../../shared/contract';
import { KilnError } from '../../shared/errors';
import { confirmStdinRoute } from './stdin-probe';

/**
 * Python run silently after every kernel (re)start: the workspace's src/ first on sys.path, and import
 * caches invalidated before each cell so a module written to src/ after the kernel started imports
 * (Python caches directory listings, and caches "no such folder" if src/ did not exist yet).
 */
export function kernelSetupCode(srcDir: string): string {
  return [
    'def _kiln_setup():',
    '    import sys, importlib',
    `    src = ${JSON.stringify(srcDir)}`,
    '    while src in sys.path:',
    '        sys.path.remove(src)',
    '    sys.path.insert(0, src)',
    '    sys.path_importer_cache.pop(src, None)',
    '    importlib.invalidate_caches()',
    '    try:',
    '        ip = get_ipython()',
    '    except NameError:',
    '        return',
    '    def _kiln_invalidate_import_caches(*args, **kwargs):',
    '        importlib.invalidate_caches()',
    "    for cb in list(ip.events.callbacks.get('pre_run_cell', [])):",
    "        if getattr(cb, '__name__', '') == '_kiln_invalidate_import_caches':",
    "            ip.events.unregister('pre_run_cell', cb)",
    "    ip.events.register('pre_run_cell', _kiln_invalidate_import_caches)",
    '_kiln_setup()',
    'del _kiln_setup',
  ].join('\n');
}

/** The status the operator is shown for a kernel connection (`connected`: it was connected once). */
export function mapStatus(kernel: KernelConnection | null, connected: boolean): KernelStatus {
  if (!kernel) return 'none';
  switch (kernel.status) {
    case 'dead':
    case 'terminating':
      return 'dead';
    case 'restarting':
    case 'autorestarting':
      return 'restarting';
    case 'unknown':
    case 'starting':
      return 'starting';
    default:
      if (kernel.connectionStatus === 'disconnected' || (kernel.connectionStatus === 'connecting' && connected))
        return 'disconnected';
      return kernel.status === 'busy' ? 'busy' : 'idle';
  }
}

/** How often the server is asked whether a kernel that has not answered yet still exists. */
const KERNEL_LOOKUP_MS = 2_000;

/** Resolves once the kernel's status is one of `settled`, or after `timeoutMs`; `nudge` makes it publish one. */
export function untilStatus(
  kernel: Kernel.IKernelConnection,
  settled: readonly string[],
  timeoutMs: number,
  nudge?: () => void,
): Promise<void> {
  if (settled.includes(kernel.status)) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      kernel.statusChanged.disconnect(onStatus);
      resolve();
    };
    const onStatus = (_sender: unknown, status: string) => {
      if (settled.includes(status)) done();
    };
    const timer = setTimeout(done, timeoutMs);
    kernel.statusChanged.connect(onStatus);
    nudge?.();
  });
}

/**
 * After Jupyter restarts a crashed kernel, its first "idle" can be published before the server's
 * subscription is back, leaving the status at "starting". Asking for kernel_info makes it publish again.
 * `current` says whether the session still has this kernel.
 */
export function nudgeUntilSettled(kernel: KernelConnection, current: () => boolean): void {
  let tries = 0;
  const timer = setInterval(() => {
    const settled = kernel.status === 'idle' || kernel.status === 'busy' || kernel.status === 'dead';
    if (!current() || kernel.isDisposed || settled || ++tries > 60) {
      clearInterval(timer);
      return;
    }
    // expected: a nudge: the next tick sends another, and the readiness wait reports a kernel that never answers
    if (kernel.connectionStatus === 'connected') kernel.requestKernelInfo().catch(() => undefined);
  }, 1000);
}

/**
 * Resolves when the kernel answers kernel_info. Rejects when it dies first, when the server no longer
 * has it (its program exited as it started and the server gave up restarting it), or after
 * `answerMs`: a kernel that never answers must not leave the notebook starting forever.
 */
export function untilAnswered(kernel: KernelConnection, name: string, answerMs: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let settled = false;
    const finish = (error: string | null) => {
      if (settled) return;
      settled = true;
      clearInterval(lookForIt);
      clearTimeout(deadline);
      kernel.statusChanged.disconnect(onStatus);
      if (error === null) resolve();
      else reject(new KilnError('E_KERNEL_DEAD', `The kernel "${name}" ${error}`));
    };
    const onStatus = (_sender: unknown, status: string) => {
      if (status === 'dead') finish('died before it answered.');
    };
    const lookForIt = setInterval(() => {
      KernelAPI.getKernelModel(kernel.id, kernel.serverSettings).then(
        (model) => {
          if (!model)
            finish(
              'stopped as it started. Check that its environment runs (for Python, that it has ipykernel), or choose another kernel.',
            );
        },
        () => undefined, // The server itself is unreachable: its own status reports that.
      );
    }, KERNEL_LOOKUP_MS);
    const deadline = setTimeout(() => finish(`did not answer within ${answerMs / 1000} s.`), answerMs);
    kernel.statusChanged.connect(onStatus);
    kernel.info.then(
      () => finish(null),
      (err: unknown) => finish(`could not be reached: ${err instanceof Error ? err.message : String(err)}`),
    );
  });
}

/** A start's failure as the operator reads it: Kiln's own error as it is, anything else as a kernel that did not start. */
export function couldNotStart(err: unknown): KilnError {
  if (err instanceof KilnError) return err;
  return new KilnError(
    'E_KERNEL_DEAD',
    `The kernel could not be started: ${err instanceof Error ? err.message : String(err)}`,
  );
}

/**
 * Resolves once the kernel answers a kernel_info request sent now. A kernel the server restarted after it died may
 * still be importing when a cell is sent (seconds on a loaded machine), and an interrupt then (the set-up's stdin
 * probe sends one when its prompt is late) kills it mid-import, so the server restarts it again and the cell is lost.
 * A request cancelled by another restart is sent again; rejects with E_KERNEL_DEAD when the kernel dies or is still
 * silent after `answerMs`.
 */
export async function untilAnswering(kernel: KernelConnection, name: string, answerMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const gaveUp = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), answerMs)));
  let onStatus: ((sender: unknown, status: string) => void) | undefined;
  const died = new Promise<'dead'>((resolve) => {
    onStatus = (_sender, status) => status === 'dead' && resolve('dead');
    kernel.statusChanged.connect(onStatus);
  });
  try {
    for (;;) {
      if (kernel.isDisposed || kernel.status === 'dead')
        throw new KilnError('E_KERNEL_DEAD', `The kernel "${name}" died.`);
      // A reply, or the request cancelled by a restart (then the next status or connection change asks again).
      const asked = kernel.requestKernelInfo().then(
        () => 'answered' as const,
        () => nextChange(kernel).then(() => 'again' as const),
      );
      const outcome = await Promise.race([asked, gaveUp, died]);
      if (outcome === 'answered') return;
      if (outcome === 'late')
        throw new KilnError('E_KERNEL_DEAD', `The kernel "${name}" did not answer within ${answerMs / 1000} s.`);
    }
  } finally {
    clearTimeout(timer);
    if (onStatus) kernel.statusChanged.disconnect(onStatus);
  }
}

/** Resolves at the kernel's next status or connection change. */
function nextChange(kernel: KernelConnection): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      kernel.statusChanged.disconnect(done);
      kernel.connectionStatusChanged.disconnect(done);
      resolve();
    };
    kernel.statusChanged.connect(done);
    kernel.connectionStatusChanged.connect(done);
  });
}

/**
 * The set-up a kernel gets after every (re)start: for Python, src/ on sys.path (`setupFailed` when that did not
 * run, so it is tried again before the next cell) and the stdin route confirmed; then its idle awaited.
 */
export async function setUpKernel(
  kernel: Kernel.IKernelConnection,
  language: string | null,
  srcDir: string | null,
  setupFailed: () => void,
): Promise<void> {
  if (language !== null && language.toLowerCase() !== 'python') return;
  if (srcDir) {
    const future = kernel.requestExecute(
      { code: kernelSetupCode(srcDir), silent: true, store_history: false, allow_stdin: false, stop_on_error: false },
      true,
    );
    try {
      await future.done;
    } catch {
      setupFailed();
    } finally {
      future.dispose();
    }
  }
  await confirmStdinRoute(kernel);
  // The kernel says idle a moment after the replies to these requests (and to the server's own kernel_info
  // nudges): a start or restart answers with the kernel as the operator will find it.
  await untilStatus(kernel, ['idle', 'dead'], 5_000);
}

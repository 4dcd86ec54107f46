import { describe, expect, it } from 'vitest';
import { confirmStdinRoute, type ProbedKernel } from './stdin-probe';

/**
 * A kernel that behaves as ipykernel does towards the probe: requests run one at a time; an interrupt
 * while nothing runs is ignored; a running input() sends its prompt, which is lost while the server's stdin
 * channel is not connected yet, and then waits for a reply or an interrupt. The real kernel's side of the
 * probe is covered by kernel.test.ts; this one makes the rare orderings happen every time.
 */
class ScriptedKernel implements ProbedKernel {
  isDisposed = false;
  interrupts = 0;
  prompts = 0;
  private readonly waiting: (() => void)[] = [];
  private finishRunning: (() => void) | null = null;

  constructor(
    private stdinRouted: boolean,
    /** The first request starts only after an interrupt came (and was ignored) while it had not. */
    private startsLate = false,
  ) {}

  requestExecute: ProbedKernel['requestExecute'] = () => {
    let resolveDone!: () => void;
    const future = {
      onStdin: (_msg: { header: { msg_type: string } }) => undefined as void,
      done: new Promise<void>((resolve) => (resolveDone = resolve)),
      dispose: () => undefined,
    };
    this.waiting.push(() => {
      this.finishRunning = () => {
        this.finishRunning = null;
        // The route is up by the time a probe ended.
        this.stdinRouted = true;
        resolveDone();
        this.runNext();
      };
      if (this.stdinRouted) {
        this.prompts++;
        queueMicrotask(() => future.onStdin({ header: { msg_type: 'input_request' } }));
      }
    });
    if (!this.startsLate) this.runNext();
    return future as unknown as ReturnType<ProbedKernel['requestExecute']>;
  };

  interrupt = async (): Promise<void> => {
    this.interrupts++;
    if (this.finishRunning) this.finishRunning();
    else if (this.startsLate) {
      this.startsLate = false;
      this.runNext();
    }
  };

  sendInputReply: ProbedKernel['sendInputReply'] = () => this.finishRunning?.();

  private runNext(): void {
    if (!this.finishRunning) this.waiting.shift()?.();
  }
}

describe('the stdin probe after a kernel (re)start', () => {
  it('is done at the first prompt when stdin is already connected', async () => {
    const kernel = new ScriptedKernel(true);
    await confirmStdinRoute(kernel);
    expect({ prompts: kernel.prompts, interrupts: kernel.interrupts }).toEqual({ prompts: 1, interrupts: 0 });
  });

  it('interrupts a probe whose prompt was lost and asks again until a prompt arrives', async () => {
    const kernel = new ScriptedKernel(false);
    await confirmStdinRoute(kernel);
    expect({ prompts: kernel.prompts, interrupts: kernel.interrupts }).toEqual({ prompts: 1, interrupts: 1 });
  });

  it('ends when its interrupt came before the kernel ran the probe, instead of waiting forever', async () => {
    const kernel = new ScriptedKernel(false, true);
    await confirmStdinRoute(kernel);
    expect(kernel.interrupts).toBe(2);
    expect(kernel.prompts).toBe(1);
  });
});

import type { KilnBridge, RequestArgs, RequestChannel, RequestResult } from '../../../shared/contract';
import { isKilnError } from '../../../shared/errors';

/** The requests that address one notebook by its path. */
export type NotebookRequest = {
  [C in RequestChannel]: C extends `notebook.${string}` ? (RequestArgs<C> extends { path: string } ? C : never) : never;
}[RequestChannel];

/** Requests that go out while the rest of the document is still arriving; every other one waits for it (it may address those cells). */
const BEFORE_WHOLE: ReadonlySet<string> = new Set([
  'notebook.open',
  'notebook.cells',
  'notebook.get',
  'notebook.close',
]);

/**
 * One notebook's requests to main: each sent to where its file is now, after the rest of the document arrived,
 * and sent again once the operator trusted the folder when main refused it as untrusted.
 */
export class NotebookRequests {
  /** Asks the operator to trust the folder (see setTrustGate). */
  private trustGate: (() => Promise<boolean>) | null = null;

  constructor(
    private readonly bridge: KilnBridge,
    /** Where the notebook's file is now (it follows renames and moves). */
    private readonly path: () => string,
    /** While the rest of the document is arriving: settles when it has. */
    private readonly wholeDocument: () => Promise<void> | null,
  ) {}

  /**
   * A request about this notebook, sent to where its file is now. Main re-keys an open notebook the
   * moment Kiln moves its file, and the feed's `moved` reaches this window ahead of main's answer, so a
   * request that crossed the move fails as not open after `path` has followed: it is sent again there.
   */
  async ask<C extends NotebookRequest>(
    channel: C,
    args: Omit<RequestArgs<C>, 'path'>,
    retriedTrusted = false,
  ): Promise<RequestResult<C>> {
    const whole = this.wholeDocument();
    if (whole && !BEFORE_WHOLE.has(channel)) await whole;
    const path = this.path();
    try {
      return await this.bridge.request(channel, { ...args, path } as RequestArgs<C>);
    } catch (err) {
      // Run, Run All, Restart...: the folder is not trusted. The operator is asked; trusted, the request goes again.
      if (isKilnError(err, 'E_UNTRUSTED') && !retriedTrusted && this.trustGate && (await this.trustGate()))
        return this.ask(channel, args, true);
      if (this.path() === path || !isKilnError(err, 'E_NOT_FOUND')) throw err;
      return this.ask(channel, args, retriedTrusted);
    }
  }

  /**
   * Who asks the operator to trust the folder when main refuses to start a kernel (E_UNTRUSTED): resolves true
   * when they trusted it, and the refused request is then sent again. Returns the way to take it back.
   */
  setTrustGate(gate: () => Promise<boolean>): () => void {
    this.trustGate = gate;
    return () => {
      if (this.trustGate === gate) this.trustGate = null;
    };
  }
}

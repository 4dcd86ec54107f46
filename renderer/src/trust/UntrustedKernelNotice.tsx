import { useEffect, useRef } from 'react';
import { useWorkspaceTrust } from './use-workspace-trust';

const UNTRUSTED_TEXT = 'Kernel not started: this folder is not trusted';

/** What a notebook's session offers the notice: a gate for refused kernel requests, and its kernel list. */
export interface TrustGatedSession {
  setTrustGate(gate: () => Promise<boolean>): () => void;
  loadSpecs(): Promise<void>;
}

/**
 * A notebook in an untrusted folder: main starts no kernel for it. The toolbar says so with "Trust…" (the one
 * trust dialog), and any request main refuses as untrusted (Run, Run All, Restart) opens the same dialog first;
 * trusted, the request goes again. Simultaneous refusals share one dialog.
 */
export function UntrustedKernelNotice({ session }: { session: TrustGatedSession }) {
  const { state, askToTrust } = useWorkspaceTrust();
  const asking = useRef<Promise<boolean> | null>(null);
  const ask = useRef(askToTrust);
  ask.current = askToTrust;

  useEffect(
    () =>
      session.setTrustGate(() => {
        asking.current ??= ask.current().finally(() => (asking.current = null));
        return asking.current;
      }),
    [session],
  );

  // Trusted from here or elsewhere: the kernel picker's list can be asked for now (no Jupyter ran before).
  const trusted = state?.trusted ?? null;
  const wasUntrusted = useRef(false);
  useEffect(() => {
    if (trusted === false) wasUntrusted.current = true;
    else if (trusted && wasUntrusted.current) {
      wasUntrusted.current = false;
      void session.loadSpecs();
    }
  }, [trusted, session]);

  if (trusted !== false) return null;
  return (
    <span className="nb-untrusted" data-testid="kernel-untrusted">
      <span role="status" className="nb-untrusted-text" title={UNTRUSTED_TEXT}>
        {UNTRUSTED_TEXT}
      </span>
      <button type="button" className="btn btn-small" onClick={() => void askToTrust()}>
        Trust…
      </button>
    </span>
  );
}

import { useCallback, useEffect, useRef, useState } from 'react';
import type { TrustState } from '../../../shared/contract';
import { useBridge, useKilnEvent } from '../app/bridge-context';
import { useCommands } from '../commands';
import { useAsk, useToasts } from '../ui';
import './trust.css';

/**
 * Restricted mode, as VS Code's Workspace Trust: while the folder is untrusted and its config asks for
 * something that needs trust, a bar says what is not used and offers "Trust this folder". The question is
 * asked once when the window opens; the decision can be changed from the command palette.
 */
export function TrustBanner() {
  const bridge = useBridge();
  const ask = useAsk();
  const toasts = useToasts();
  const [state, setState] = useState<TrustState | null>(null);
  const asked = useRef(false);

  useEffect(() => {
    void bridge.request('trust.get', {}).then(setState);
  }, [bridge]);
  useKilnEvent('trust.changed', setState);

  const setTrusted = useCallback(
    async (trusted: boolean) => {
      try {
        setState(await bridge.request('trust.set', { trusted }));
      } catch (err) {
        toasts.error(`Could not change trust: ${(err as Error).message}`);
      }
    },
    [bridge, toasts],
  );

  const askToTrust = useCallback(
    async (withheld: string[]) => {
      const answer = await ask({
        title: 'Trust this folder?',
        message: (
          <>
            <p>
              This folder&apos;s <code>.kiln/config.yaml</code> asks Kiln to start programs or to send requests, with keys
              from your environment, to servers it names:
            </p>
            <ul className="trust-withheld">
              {withheld.map((key) => (
                <li key={key}>
                  <code>{key}</code>
                </li>
              ))}
            </ul>
            <p>
              Trust it only if you know where it comes from. Until then Kiln opens and edits its files, runs notebooks on the
              Jupyter found on your PATH, and the assistants use only the models of your own config.
            </p>
          </>
        ),
        buttons: [
          { label: 'Trust', value: 'trust', primary: true },
          { label: "Don't trust", value: 'dont' },
        ],
        cancelValue: 'dont',
      });
      if (answer === 'trust') await setTrusted(true);
    },
    [ask, setTrusted],
  );

  const restricted = state !== null && !state.trusted && state.withheld.length > 0;
  useEffect(() => {
    if (!restricted || asked.current) return;
    asked.current = true;
    void askToTrust(state.withheld);
  }, [restricted, state, askToTrust]);

  useCommands(
    state === null
      ? []
      : state.trusted
        ? [{ id: 'workspace.revokeTrust', title: 'Revoke Trust in This Folder', category: 'Workspace', run: () => setTrusted(false) }]
        : [{ id: 'workspace.trust', title: 'Trust This Folder…', category: 'Workspace', run: () => askToTrust(state.withheld) }],
  );

  if (!restricted) return null;
  return (
    <div className="trust-banner" role="status" aria-label="Restricted mode">
      <span className="trust-banner-text">
        <strong>Restricted mode.</strong> Not used until you trust this folder: {state.withheld.join(', ')}.
      </span>
      <button type="button" className="btn btn-primary" onClick={() => void askToTrust(state.withheld)}>
        Trust this folder…
      </button>
    </div>
  );
}

import { useCallback, useEffect, useState } from 'react';
import type { TrustState } from '../../../shared/contract';
import { useBridge, useKilnEvent } from '../app/bridge-context';
import { useAsk, useToasts } from '../ui';
import './trust.css';

export interface WorkspaceTrust {
  state: TrustState | null;
  /** Untrusted, and the project config asks for something that needs trust. */
  restricted: boolean;
  /** Restricted, and among what is withheld are the project's own models. */
  modelsWithheld: boolean;
  setTrusted: (trusted: boolean) => Promise<void>;
  /** Opens the "Trust this folder?" dialog; "Trust" trusts the folder. */
  askToTrust: () => Promise<void>;
}

/** The workspace's trust, kept current from main, and the one "Trust this folder?" dialog every surface opens. */
export function useWorkspaceTrust(): WorkspaceTrust {
  const bridge = useBridge();
  const ask = useAsk();
  const toasts = useToasts();
  const [state, setState] = useState<TrustState | null>(null);

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

  const withheld = state?.withheld;
  const askToTrust = useCallback(async () => {
    const answer = await ask({
      title: 'Trust this folder?',
      message: (
        <>
          <p>
            This folder&apos;s <code>.kiln/config.yaml</code> asks Kiln to start programs or to send requests, with keys
            from your environment, to servers it names:
          </p>
          <ul className="trust-withheld">
            {(withheld ?? []).map((key) => (
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
  }, [ask, setTrusted, withheld]);

  const restricted = state !== null && !state.trusted && state.withheld.length > 0;
  const modelsWithheld = restricted && state.withheld.some((key) => key.startsWith('models.'));
  return { state, restricted, modelsWithheld, setTrusted, askToTrust };
}

import { useCallback } from 'react';
import type { KilnBridge, TrustState } from '../../../shared/contract';
import { Store, errorText, perBridge, useStore } from '../base';
import { useAsk, useToasts } from '../ui';
import './trust.css';

export interface WorkspaceTrust {
  state: TrustState | null;
  /** Untrusted, and the project config asks for something that needs trust. */
  restricted: boolean;
  /** Restricted, and among what is withheld are the project's own models. */
  modelsWithheld: boolean;
  setTrusted: (trusted: boolean) => Promise<void>;
  /** Opens the "Trust this folder?" dialog; "Trust" trusts the folder. Resolves whether the folder is trusted after. */
  askToTrust: () => Promise<boolean>;
}

/** The workspace's trust as main last told it: asked once per window, then kept current from its event. */
class TrustStore extends Store<{ trust: TrustState | null }> {
  constructor(private readonly bridge: KilnBridge) {
    super({ trust: null });
    this.own(bridge.on('trust.changed', (trust) => this.set({ trust })));
    void bridge.request('trust.get', {}).then(
      (trust) => this.set({ trust }),
      () => undefined,
    );
  }

  async setTrusted(trusted: boolean): Promise<void> {
    this.set({ trust: await this.bridge.request('trust.set', { trusted }) });
  }

  get trusted(): boolean {
    return this.state.trust?.trusted ?? false;
  }
}

const useTrustStore = perBridge((bridge) => new TrustStore(bridge));

/** The workspace's trust, shared by every surface, and the one "Trust this folder?" dialog they all open. */
export function useWorkspaceTrust(): WorkspaceTrust {
  const ask = useAsk();
  const toasts = useToasts();
  const store = useTrustStore();
  const state = useStore(store, (s) => s.trust);

  const setTrusted = useCallback(
    async (trusted: boolean) => {
      try {
        await store.setTrusted(trusted);
      } catch (err) {
        toasts.error(errorText(err, 'Could not change trust'));
      }
    },
    [store, toasts],
  );

  const withheld = state?.withheld;
  const features = state?.withheldFeatures;
  const askToTrust = useCallback(async () => {
    const answer = await ask({
      title: 'Trust this folder?',
      message: (
        <>
          {(withheld ?? []).length > 0 && (
            <>
              <p>
                This folder&apos;s <code>.kiln/config.yaml</code> sets what Kiln would run, where it would send your
                work and keys, or what it would tell your models; none of it is used until you trust the folder:
              </p>
              <ul className="trust-withheld">
                {(withheld ?? []).map((key) => (
                  <li key={key}>
                    <code>{key}</code>
                  </li>
                ))}
              </ul>
            </>
          )}
          {(features ?? []).length > 0 && (
            <>
              <p>Until you trust it, Kiln {(withheld ?? []).length > 0 ? 'also ' : ''}holds back:</p>
              <ul className="trust-withheld">
                {(features ?? []).map((feature) => (
                  <li key={feature.name}>
                    <strong>{feature.name}</strong>: {feature.reason}
                  </li>
                ))}
              </ul>
            </>
          )}
          <p>
            Trust it only if you know where it comes from. Until then Kiln opens and edits its files but runs none of
            its code: its notebooks start no kernel, nothing of it goes on a Python path, and the assistants use only
            the models and prompts of your own config.
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
    return store.trusted;
  }, [ask, setTrusted, store, withheld, features]);

  const restricted =
    state !== null && !state.trusted && (state.withheld.length > 0 || state.withheldFeatures.length > 0);
  const modelsWithheld = restricted && state.withheld.some((key) => key.startsWith('models.'));
  return { state, restricted, modelsWithheld, setTrusted, askToTrust };
}

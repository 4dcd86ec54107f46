import type { TrustState } from '../../shared/contract';
import { Emitter, type Event } from '../../shared/base/event';
import { DisposableStore, type IDisposable } from '../../shared/base/lifecycle';
import { logListenerError } from '../events';
import { withheldFeatures } from './withheld';
import type { WorkspaceTrust } from './workspace-trust';

export interface TrustStateOptions {
  trust: WorkspaceTrust;
  /** The project config keys withheld until trusted, as the config has them now. */
  withheld(): string[];
  /** The configuration changed: what is withheld may have. */
  onDidChangeConfig: Event<unknown>;
  /** Facts restricted mode names, found once off the start-up path: a git repository here, a working sandbox. */
  facts: Promise<{ inGitRepository: boolean; sandboxAvailable: boolean }>;
}

/**
 * What the trust banner and dialog show (`trust.get`, `trust.changed`): the decision, the config keys withheld and
 * the features restricted mode holds back here; told again when the decision or the configuration changes.
 */
export class TrustStateService implements IDisposable {
  private readonly disposables = new DisposableStore();
  private readonly changeEmitter = this.disposables.add(new Emitter<TrustState>({ onListenerError: logListenerError }));
  readonly onDidChange: Event<TrustState> = this.changeEmitter.event;

  constructor(private readonly options: TrustStateOptions) {
    this.disposables.add(
      options.onDidChangeConfig(() => void this.get().then((state) => this.changeEmitter.fire(state))),
    );
  }

  async get(): Promise<TrustState> {
    const { inGitRepository, sandboxAvailable } = await this.options.facts;
    const trusted = this.options.trust.trusted;
    return {
      trusted,
      withheld: this.options.withheld(),
      withheldFeatures: withheldFeatures({ trusted, inGitRepository, sandboxAvailable }),
    };
  }

  /** Grants or revokes trust (its followers have followed when this resolves), then tells the new state. */
  async set(trusted: boolean): Promise<TrustState> {
    await this.options.trust.set(trusted);
    const state = await this.get();
    this.changeEmitter.fire(state);
    return state;
  }

  dispose(): Promise<void> {
    return this.disposables.dispose();
  }
}

/**
 * The Agent panel's renderer state: the config (enabled or not) and the one workspace session
 * (transcript, run state, queue). One store per bridge, so the panel can unmount with its tab.
 */
import type {
  AgentEntry,
  AgentSnapshot,
  ConfigState,
  EventPayload,
  KilnBridge,
  RunState,
} from '../../../shared/contract';
import type { SandboxInfo } from '../../../shared/contract/verbs';
import { KilnError } from '../../../shared/errors';
import { Store, perBridge, shownError, useStore } from '../base';

export interface AgentState {
  config: ConfigState | null;
  /** Null until the first open answered. */
  snapshot: AgentSnapshot | null;
  transcript: AgentEntry[];
  runState: RunState;
  queued: number;
  /** Whether run-file / execute-code run sandboxed on this machine; null until main answered. */
  sandbox: SandboxInfo | null;
}

// process-wide: ids only grow; unique across windows is all they need to be.
let localIds = 0;

export class AgentStore extends Store<AgentState> {
  constructor(private readonly bridge: KilnBridge) {
    super({ config: null, snapshot: null, transcript: [], runState: 'idle', queued: 0, sandbox: null });
    this.own(
      bridge.on('config.changed', (config) => {
        this.set({ config });
        // Enabled, model and offered verbs follow the config.
        void this.open();
      }),
      bridge.on('agent.delta', (p) => this.onDelta(p)),
      bridge.on('agent.transcript', (p) => this.onTranscript(p)),
      bridge.on('agent.runState', (p) => this.set({ runState: p.state, queued: p.queued })),
      bridge.on('agent.session', (p) => this.adopt(p.snapshot)),
    );
    void bridge.request('config.get', {}).then(
      (config) => this.set({ config }),
      () => undefined,
    );
    // The machine does not change while Kiln runs: asked once.
    void bridge.request('verbs.sandbox', {}).then(
      (sandbox) => this.set({ sandbox }),
      () => undefined,
    );
    void this.open();
  }

  async open(): Promise<void> {
    try {
      this.adopt(await this.bridge.request('agent.open', {}));
    } catch (err) {
      this.addLocalError(err);
    }
  }

  /** Sends a message; while a run is going it is queued by main. Refusals become local error lines. */
  async send(text: string): Promise<void> {
    try {
      const outcome = await this.bridge.request('agent.send', { text });
      if (outcome.status === 'error' && outcome.error) {
        const seen = this.state.transcript.some((e) => e.type === 'error' && e.message === outcome.error!.message);
        if (!seen) this.addLocalError(new KilnError(outcome.error.code, outcome.error.message));
      }
    } catch (err) {
      this.addLocalError(err);
    }
  }

  async stop(): Promise<void> {
    await this.bridge.request('agent.stop', {}).catch(() => undefined);
  }

  async clear(): Promise<void> {
    try {
      await this.bridge.request('agent.clear', {});
    } catch (err) {
      this.addLocalError(err);
    }
  }

  private addLocalError(err: unknown): void {
    const { code, message } = shownError(err);
    const entry: AgentEntry = { type: 'error', id: `local-${++localIds}`, at: Date.now(), code, message };
    this.set({ transcript: [...this.state.transcript, entry] });
  }

  private adopt(snapshot: AgentSnapshot): void {
    this.set({ snapshot, transcript: snapshot.transcript, runState: snapshot.runState, queued: snapshot.queued });
  }

  private onDelta({ entryId, text }: EventPayload<'agent.delta'>): void {
    this.set({
      transcript: this.state.transcript.map((e) =>
        e.id === entryId && e.type === 'assistant' ? { ...e, text: e.text + text } : e,
      ),
    });
  }

  private onTranscript({ entry }: EventPayload<'agent.transcript'>): void {
    const index = this.state.transcript.findIndex((e) => e.id === entry.id);
    if (index < 0) {
      this.set({ transcript: [...this.state.transcript, entry] });
      return;
    }
    const transcript = [...this.state.transcript];
    transcript[index] = entry;
    this.set({ transcript });
  }
}

export const useAgentStore = perBridge((bridge) => new AgentStore(bridge));

export function useAgent(): AgentState {
  return useStore(useAgentStore());
}

/**
 * The Agent panel's renderer state: the config (enabled or not) and the one workspace session
 * (transcript, run state, queue). One store per bridge, so the panel can unmount with its tab.
 */
import type { AgentSessionEntry, AgentSessionSnapshot, ConfigState, EventPayload, KilnBridge, RunState } from '../../../shared/contract';
import { KilnError } from '../../../shared/errors';
import { BridgeStore, errorFrom, perBridge, useStoreState } from '../chat/store';

export interface AgentSessionState {
  config: ConfigState | null;
  /** Null until the first open answered. */
  snapshot: AgentSessionSnapshot | null;
  transcript: AgentSessionEntry[];
  runState: RunState;
  queued: number;
}

let localIds = 0;

export class AgentSessionStore extends BridgeStore<AgentSessionState> {
  constructor(private readonly bridge: KilnBridge) {
    super({ config: null, snapshot: null, transcript: [], runState: 'idle', queued: 0 });
    this.unsubscribe.push(
      bridge.on('config.changed', (config) => {
        this.set({ config });
        // Enabled, model and offered verbs follow the config.
        void this.open();
      }),
      bridge.on('agentSession.delta', (p) => this.onDelta(p)),
      bridge.on('agentSession.transcript', (p) => this.onTranscript(p)),
      bridge.on('agentSession.runState', (p) => this.set({ runState: p.state, queued: p.queued })),
      bridge.on('agentSession.session', (p) => this.adopt(p.snapshot)),
    );
    void bridge.request('config.get', {}).then((config) => this.set({ config }), () => undefined);
    void this.open();
  }

  async open(): Promise<void> {
    try {
      this.adopt(await this.bridge.request('agentSession.open', {}));
    } catch (err) {
      this.addLocalError(err);
    }
  }

  /** Sends a message; while a run is going it is queued by main. Refusals become local error lines. */
  async send(text: string): Promise<void> {
    try {
      const outcome = await this.bridge.request('agentSession.send', { text });
      if (outcome.status === 'error' && outcome.error) {
        const seen = this.state.transcript.some((e) => e.type === 'error' && e.message === outcome.error!.message);
        if (!seen) this.addLocalError(new KilnError(outcome.error.code, outcome.error.message));
      }
    } catch (err) {
      this.addLocalError(err);
    }
  }

  async stop(): Promise<void> {
    await this.bridge.request('agentSession.stop', {}).catch(() => undefined);
  }

  async clear(): Promise<void> {
    try {
      await this.bridge.request('agentSession.clear', {});
    } catch (err) {
      this.addLocalError(err);
    }
  }

  private addLocalError(err: unknown): void {
    const { code, message } = errorFrom(err);
    const entry: AgentSessionEntry = { type: 'error', id: `local-${++localIds}`, at: Date.now(), code, message };
    this.set({ transcript: [...this.state.transcript, entry] });
  }

  private adopt(snapshot: AgentSessionSnapshot): void {
    this.set({ snapshot, transcript: snapshot.transcript, runState: snapshot.runState, queued: snapshot.queued });
  }

  private onDelta({ entryId, text }: EventPayload<'agentSession.delta'>): void {
    this.set({
      transcript: this.state.transcript.map((e) => (e.id === entryId && e.type === 'assistant' ? { ...e, text: e.text + text } : e)),
    });
  }

  private onTranscript({ entry }: EventPayload<'agentSession.transcript'>): void {
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

export const useAgentSessionStore = perBridge((bridge) => new AgentSessionStore(bridge));

export function useAgentSession(): AgentSessionState {
  return useStoreState(useAgentSessionStore());
}

import type { IDisposable } from '../../shared/base/lifecycle';
import { wireEmitter } from '../events';

/**
 * The Edit assistant's events, one emitter per kind: the sessions fire them through their journals, and the service
 * exposes them as its onDid… events (main/services.ts announces those on the wire).
 */
export class EditAssistantEmitters implements IDisposable {
  readonly streamed = wireEmitter<'editAssistant.delta'>();
  readonly transcriptChanged = wireEmitter<'editAssistant.transcript'>();
  readonly proposalChanged = wireEmitter<'editAssistant.proposal'>();
  readonly runStateChanged = wireEmitter<'editAssistant.runState'>();
  readonly sessionChanged = wireEmitter<'editAssistant.session'>();

  dispose(): void {
    for (const emitter of [
      this.streamed,
      this.transcriptChanged,
      this.proposalChanged,
      this.runStateChanged,
      this.sessionChanged,
    ])
      emitter.dispose();
  }
}

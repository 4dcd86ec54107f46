import type { z } from 'zod';
import { workspaceEvents, workspaceRequests } from './workspace';
import { notebookEvents, notebookRequests } from './notebook';
import { notebookCellRequests } from './notebook-cells';
import { configEvents, configRequests } from './config';
import { editAssistantEvents, editAssistantRequests } from './edit-assistant';
import { agentEvents, agentRequests } from './agent';
import { verbsEvents, verbsRequests } from './verbs';
import { quickOpenEvents, quickOpenRequests } from './quick-open';
import { searchEvents, searchRequests } from './search';
import { replaceRequests } from './replace';
import { trustEvents, trustRequests } from './trust';
import { gitEvents, gitRequests } from './git';
import { terminalEvents, terminalRequests } from './terminal';
import { kernelAssistRequests } from './kernel-assist';
import { historyEvents, historyRequests } from './history';
import { notebookExportRequests } from './notebook-export';
import { uploadRequests } from './upload';
import { languageEvents, languageRequests } from './language';
import { downloadRequests } from './download';
import { logRequests } from './log';
import { notebookDiffRequests } from './notebook-diff';
import { variablesEvents, variablesRequests } from './variables';
import { dataViewerRequests } from './data-viewer';
import { debuggerEvents, debuggerRequests } from './debugger';
import { kernelEnvironmentEvents, kernelEnvironmentRequests } from './kernel-environments';

export * from './workspace';
export * from './notebook';
export * from './notebook-cells';
export * from './config';
export * from './runs';
export * from './edit-assistant';
export * from './agent';
export * from './verbs';
export * from './quick-open';
export * from './search';
export * from './replace';
export * from './trust';
export * from './git';
export * from './terminal';
export * from './kernel-assist';
export * from './history';
export * from './notebook-export';
export * from './upload';
export * from './language';
export * from './download';
export * from './log';
export * from './notebook-diff';
export * from './variables';
export * from './data-viewer';
export * from './debugger';
export * from './kernel-environments';

/**
 * The whole contract: every request channel (args, result) and every event channel (payload).
 * Both hosts, the preload bridge and the renderer client are typed from these two tables.
 */
export const requests = {
  ...workspaceRequests,
  ...notebookRequests,
  ...notebookCellRequests,
  ...configRequests,
  ...editAssistantRequests,
  ...agentRequests,
  ...verbsRequests,
  ...quickOpenRequests,
  ...searchRequests,
  ...replaceRequests,
  ...trustRequests,
  ...gitRequests,
  ...terminalRequests,
  ...kernelAssistRequests,
  ...historyRequests,
  ...notebookExportRequests,
  ...uploadRequests,
  ...languageRequests,
  ...downloadRequests,
  ...logRequests,
  ...notebookDiffRequests,
  ...variablesRequests,
  ...dataViewerRequests,
  ...debuggerRequests,
  ...kernelEnvironmentRequests,
} as const;
export const events = {
  ...workspaceEvents,
  ...notebookEvents,
  ...configEvents,
  ...editAssistantEvents,
  ...agentEvents,
  ...verbsEvents,
  ...quickOpenEvents,
  ...searchEvents,
  ...trustEvents,
  ...gitEvents,
  ...terminalEvents,
  ...historyEvents,
  ...languageEvents,
  ...variablesEvents,
  ...debuggerEvents,
  ...kernelEnvironmentEvents,
} as const;

export type Requests = typeof requests;
export type RequestChannel = keyof Requests;
/** What a caller passes (defaults not yet applied). */
export type RequestArgs<C extends RequestChannel> = z.input<Requests[C]['args']>;
/** What a handler receives after validation. */
export type ParsedArgs<C extends RequestChannel> = z.output<Requests[C]['args']>;
export type RequestResult<C extends RequestChannel> = z.output<Requests[C]['result']>;

export type Events = typeof events;
export type EventChannel = keyof Events;
export type EventPayload<E extends EventChannel> = z.output<Events[E]>;
export type AnyEvent = { [E in EventChannel]: { channel: E; payload: EventPayload<E> } }[EventChannel];

export const REQUEST_CHANNELS = Object.keys(requests) as RequestChannel[];
export const EVENT_CHANNELS = Object.keys(events) as EventChannel[];

/** What the renderer sees, whichever host it runs under (Electron preload or WebSocket). */
export interface KilnBridge {
  request<C extends RequestChannel>(channel: C, args: RequestArgs<C>): Promise<RequestResult<C>>;
  on<E extends EventChannel>(channel: E, listener: (payload: EventPayload<E>) => void): () => void;
  /** Which transport carries the contract; for diagnostics only, the UI must not branch on it. */
  readonly transport: 'electron' | 'websocket' | 'in-process';
}

/** The raw shape the Electron preload exposes; results arrive as an envelope so errors keep their code. */
export type Envelope<T> = { ok: true; value: T } | { ok: false; error: import('../errors').WireError };

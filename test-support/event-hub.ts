import * as fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { AnyEvent, EventChannel, EventPayload } from '../shared/contract';
import { EventHub } from '../main/events';
import type { NotebookService } from '../main/notebook';
import { Workspace } from '../main/workspace';

/** A real temp workspace and an event recorder, for notebook tests. */
export async function makeWorkspace(
  prefix: string,
): Promise<{ root: string; workspace: Workspace; hub: EventHub; events: AnyEvent[] }> {
  const root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), prefix)));
  const workspace = await Workspace.open({ root });
  const hub = new EventHub();
  const events: AnyEvent[] = [];
  hub.onEvent((e) => events.push(e));
  return { root, workspace, hub, events };
}

export function eventsOf<E extends EventChannel>(events: AnyEvent[], channel: E): EventPayload<E>[] {
  return events.filter((e) => e.channel === channel).map((e) => e.payload as EventPayload<E>);
}

/** Resolves when `hub` emits an event on `channel` that matches. */
export function nextEvent<E extends EventChannel>(
  hub: EventHub,
  channel: E,
  match: (p: EventPayload<E>) => boolean = () => true,
  timeoutMs = 60_000,
): Promise<EventPayload<E>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void watching.dispose();
      reject(new Error(`No ${channel} event within ${timeoutMs} ms`));
    }, timeoutMs);
    const watching = hub.onEvent((e) => {
      if (e.channel === channel && match(e.payload as EventPayload<E>)) {
        clearTimeout(timer);
        void watching.dispose();
        resolve(e.payload as EventPayload<E>);
      }
    });
  });
}

/** Announces a notebook service's events on `hub` on their wire channels, as main/services.ts's table does. */
export function announcingNotebooks(hub: EventHub, notebooks: NotebookService): NotebookService {
  hub.announce({
    'notebook.output': notebooks.events.onDidChangeOutput,
    'notebook.cellState': notebooks.events.onDidChangeCellState,
    'notebook.kernelStatus': notebooks.events.onDidChangeKernelStatus,
    'notebook.changed': notebooks.events.onDidChangeDocument,
    'notebook.conflict': notebooks.events.onDidConflict,
    'notebook.dirty': notebooks.events.onDidChangeDirty,
    'notebook.inputRequest': notebooks.events.onDidRequestInput,
    'notebook.jupyterError': notebooks.events.onDidFailJupyter,
    'notebook.variablesChanged': notebooks.events.onDidChangeVariables,
  });
  return notebooks;
}

import { describe, expect, it } from 'vitest';
import type { AnyEvent } from '../shared/contract';
import { EventHub, wireEmitter } from './events';

describe('EventHub.announce', () => {
  it("sends each service event on its table's channel, in the order fired, until disposed", () => {
    const hub = new EventHub();
    const seen: AnyEvent[] = [];
    hub.onEvent((event) => seen.push(event));
    const dirty = wireEmitter<'notebook.dirty'>();
    const fromReplace = wireEmitter<'notebook.variablesChanged'>();
    const fromNotebooks = wireEmitter<'notebook.variablesChanged'>();
    // A channel two services announce on lists both.
    const announced = hub.announce({
      'notebook.dirty': dirty.event,
      'notebook.variablesChanged': [fromReplace.event, fromNotebooks.event],
    });
    dirty.fire({ path: 'a.ipynb', dirty: true, rev: 1 });
    fromNotebooks.fire({ path: 'a.ipynb' });
    fromReplace.fire({ path: 'b.ipynb' });
    announced.dispose();
    dirty.fire({ path: 'a.ipynb', dirty: false, rev: 2 });
    expect(seen).toEqual([
      { channel: 'notebook.dirty', payload: { path: 'a.ipynb', dirty: true, rev: 1 } },
      { channel: 'notebook.variablesChanged', payload: { path: 'a.ipynb' } },
      { channel: 'notebook.variablesChanged', payload: { path: 'b.ipynb' } },
    ]);
  });
});

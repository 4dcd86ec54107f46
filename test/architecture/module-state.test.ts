import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { moduleState, unmarkedModuleState } from './module-state';

// `npm test` fails on a new module-level mutable in the renderer: state that differs between two windows (bridges)
// in one page belongs in a `perBridge` store or in the session that owns it. What is one per process by nature
// (Monaco's global registries, a DOM singleton, a lazily loaded library, an id counter) says why on its line with
// `// process-wide: …`.
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('module-level state in the renderer', () => {
  it('product code holds none that is not marked process-wide', () => {
    const found = moduleState(ROOT).map((s) => `${s.file}:${s.line}: ${s.text}`);
    expect(found).toEqual([]);
  });

  it('finds let, var and new collections, events and stores; passes the marked and the read-only', () => {
    const text = [
      'let count = 0;',
      'export var legacy = 1;',
      'const byPath = new Map<string, number>();',
      'const changed = new Emitter<void>();',
      'export const panel = new PanelStore();',
      'const seen = new WeakSet<object>();',
      '// process-wide: Monaco registers providers once per page.',
      'let registered = false;',
      'let ids = 0; // process-wide: ids only grow, unique across windows',
      '/** One per page. */',
      'let next = 1;',
      '',
      'let apart = 0;',
      "const KINDS: ReadonlySet<string> = new Set(['a']);",
      'const LIMIT = 5;',
      "const pattern = new RegExp('x');",
      'function f() {',
      '  let inner = 0;',
      '  const local = new Map();',
      '  return inner + local.size;',
      '}',
    ].join('\n');
    expect(unmarkedModuleState('x.ts', text).map((s) => s.line)).toEqual([1, 2, 3, 4, 5, 6, 13]);
  });
});

import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { makeTempTree } from '../../test-support/temp-workspace';
import { cycles, importGraph, loopThrough } from './import-graph';

// `npm test` fails on any import cycle in product code: a reader can then follow any folder's imports down to
// shared/ without coming back to where they started. Break a cycle with a contribution point (editor/overlays.ts,
// commands/menus.ts, editor/document-views.ts) or by moving shared types down into their own module.
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function describeCycles(graph: Map<string, string[]>): string[] {
  return cycles(graph).map((component) => `${component.length} files: ${loopThrough(graph, component).join(' -> ')}`);
}

describe('import cycles', () => {
  it('product code (shared, main, preload, renderer) has none', () => {
    const graph = importGraph(ROOT);
    expect(graph.size).toBeGreaterThan(300);
    expect(describeCycles(graph)).toEqual([]);
  });

  it('finds a cycle through an index, a type-only import and a re-export, and names the loop', async () => {
    const { root, cleanup } = await makeTempTree({
      'renderer/src/a/index.ts': "export { A } from './A';\n",
      'renderer/src/a/A.tsx': "import type { B } from '../b';\nexport const A = 1;\nexport type { B };\n",
      'renderer/src/b/index.ts': "export * from './b-store';\n",
      'renderer/src/b/b-store.ts': "import { A } from '../a';\nexport type B = typeof A;\n",
      'renderer/src/b/b-store.test.ts': "import { A } from '../a';\n",
      'shared/leaf.ts': "import { z } from 'zod';\nexport const leaf = z.string();\n",
      'main/self.ts': "export const later = () => import('./self');\n",
    });
    try {
      const graph = importGraph(root);
      expect([...graph.keys()].sort()).not.toContain('renderer/src/b/b-store.test.ts');
      expect(describeCycles(graph)).toEqual([
        '1 files: main/self.ts -> main/self.ts',
        '4 files: renderer/src/a/A.tsx -> renderer/src/b/index.ts -> renderer/src/b/b-store.ts -> ' +
          'renderer/src/a/index.ts -> renderer/src/a/A.tsx',
      ]);
    } finally {
      await cleanup();
    }
  });
});

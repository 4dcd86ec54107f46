import react from '@vitejs/plugin-react';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { SourceMapConsumer } from 'source-map-js';
import { build } from 'vite';

const ROOT = path.resolve(import.meta.dirname, '..');
/** The output renderers' own code, and the libraries only they bring (KaTeX, Vega, Plotly). */
const RENDERER_SOURCE = /renderer\/src\/notebook\/renderers\/|node_modules\/(katex|vega[^/]*|plotly[^/]*|d3-[^/]+)\//;
const RENDERER_CSS = path.join(ROOT, 'renderer/src/notebook/renderers/outputs.css');

export interface FirstLoad {
  /** Bytes of the JS and CSS the page loads before anything is opened. */
  bytes: number;
  /** Of those, the bytes that come from the output renderers (their CSS counted at its source size, an upper bound). */
  rendererBytes: number;
}

/**
 * The renderer as the app builds it (electron.vite.config.ts's renderer part), built again with source maps into
 * a temp folder, so each byte of the first load (index.html's script, preloads and stylesheet) can be traced to
 * the source it came from. What the output renderers put there is what they grew the first load by.
 */
export async function measureFirstLoad(): Promise<FirstLoad> {
  const out = await mkdtemp(path.join(os.tmpdir(), 'kiln-bench-first-load-'));
  try {
    await build({
      configFile: false,
      logLevel: 'warn',
      base: './',
      root: path.join(ROOT, 'renderer'),
      plugins: [react()],
      resolve: {
        alias: [
          {
            find: /^\.\/codicon\.ttf$/,
            replacement: path.join(ROOT, 'node_modules/@vscode/codicons/dist/codicon.ttf'),
          },
        ],
      },
      build: {
        outDir: out,
        sourcemap: true,
        rollupOptions: { input: path.join(ROOT, 'renderer/index.html') },
        chunkSizeWarningLimit: 8000,
      },
      worker: { format: 'es' },
    });
    const html = await readFile(path.join(out, 'index.html'), 'utf8');
    const assets = [...html.matchAll(/(?:src|href)="\.?\/?(assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]);
    let bytes = 0;
    let rendererBytes = 0;
    for (const asset of assets) {
      const code = await readFile(path.join(out, asset), 'utf8');
      bytes += Buffer.byteLength(code);
      if (asset.endsWith('.css')) {
        if (code.includes('.nb-out-')) rendererBytes += (await stat(RENDERER_CSS)).size;
        continue;
      }
      const map = await readFile(path.join(out, `${asset}.map`), 'utf8').catch(() => null);
      if (map) rendererBytes += bytesFrom(code, map, RENDERER_SOURCE);
    }
    return { bytes, rendererBytes };
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}

/** The generated characters whose mapping names a source matching `sources` (each segment runs to the next). */
function bytesFrom(code: string, map: string, sources: RegExp): number {
  const lines = code.split('\n');
  let total = 0;
  let previous: { line: number; column: number; counts: boolean } | null = null;
  new SourceMapConsumer(JSON.parse(map)).eachMapping((m) => {
    if (previous?.counts)
      total +=
        previous.line === m.generatedLine
          ? m.generatedColumn - previous.column
          : lines[previous.line - 1].length - previous.column;
    previous = { line: m.generatedLine, column: m.generatedColumn, counts: sources.test(m.source ?? '') };
  });
  return total;
}

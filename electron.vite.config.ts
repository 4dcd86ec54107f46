import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';
import { resolve } from 'node:path';

/** One build for the three parts. The main bundle also carries the web host and MCP entry points. */
export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      rollupOptions: {
        input: {
          electron: resolve(__dirname, 'main/hosts/electron/main.ts'),
          web: resolve(__dirname, 'main/hosts/web/cli.ts'),
          mcp: resolve(__dirname, 'main/mcp/cli.ts'),
        },
      },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      rollupOptions: {
        input: { index: resolve(__dirname, 'preload/index.ts') },
        // A sandboxed preload must be a single CommonJS file.
        output: { format: 'cjs', entryFileNames: '[name].cjs', codeSplitting: false },
      },
      externalizeDeps: false,
    },
  },
  renderer: {
    root: 'renderer',
    plugins: [react()],
    // One codicon font for Kiln's icons and Monaco's: @vscode/codicons' (a superset with the same code points).
    resolve: {
      alias: [
        {
          find: /^\.\/codicon\.ttf$/,
          replacement: resolve(__dirname, 'node_modules/@vscode/codicons/dist/codicon.ttf'),
        },
      ],
    },
    build: {
      outDir: 'out/renderer',
      rollupOptions: { input: resolve(__dirname, 'renderer/index.html') },
      chunkSizeWarningLimit: 8000,
    },
    worker: { format: 'es' },
  },
});

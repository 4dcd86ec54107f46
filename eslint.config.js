// Lint: typescript-eslint's recommended rules (not the type-checked set: too slow on two cores), the import
// boundaries between layers and renderer feature folders, and React's hooks rules.
// Boundaries rather than dependency-cruiser: it runs inside the one linter, on the imports ESLint has already parsed.
import js from '@eslint/js';
import boundaries from 'eslint-plugin-boundaries';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';
import { defineConfig } from 'eslint/config';

const FEATURE = { type: 'renderer-feature' };

export default defineConfig(
  // Built or generated; plain JS (the launch scripts, these configs) is outside the TypeScript rules.
  { ignores: ['out/', 'dist/', 'test-results/', 'playwright-report/', 'bench/results/', '**/*.js', '**/*.mjs'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // `_name` marks a parameter a signature needs but the body does not.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Playwright reads which fixtures a fixture needs from its destructured first argument, even when it needs none.
    files: ['e2e/**/*.ts'],
    rules: {
      'no-empty-pattern': 'off',
      // Two workers writing the same fixed file overwrite each other's: artifacts go to test.info().outputPath().
      'no-restricted-syntax': [
        'error',
        {
          selector: "Property[key.name='path'] > Literal[value=/^\\/tmp\\//]",
          message: 'Write test artifacts to test.info().outputPath(...), not a fixed /tmp path.',
        },
      ],
    },
  },
  {
    files: ['renderer/**/*.ts', 'renderer/**/*.tsx'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
    },
  },
  {
    files: [
      'shared/**/*.ts',
      'main/**/*.ts',
      'preload/**/*.ts',
      'renderer/**/*.ts',
      'renderer/**/*.tsx',
      'e2e/**/*.ts',
      'bench/**/*.ts',
      'test/**/*.ts',
      'test-support/**/*.ts',
    ],
    plugins: { boundaries },
    settings: {
      'import/resolver': { node: { extensions: ['.ts', '.tsx', '.js', '.json'] } },
      'boundaries/legacy-templates': false,
      // Re-exports and import() cross layers as much as imports do.
      'boundaries/dependency-nodes': ['import', 'export', 'dynamic-import'],
      // First match wins: a renderer feature folder before the renderer as a whole.
      'boundaries/elements': [
        { type: 'renderer-feature', pattern: 'renderer/src/*', capture: ['feature'], partialMatch: false },
        { type: 'renderer', pattern: 'renderer', partialMatch: false },
        { type: 'shared', pattern: 'shared', partialMatch: false },
        { type: 'main', pattern: 'main', partialMatch: false },
        { type: 'preload', pattern: 'preload', partialMatch: false },
        { type: 'tests', pattern: ['e2e', 'bench', 'test', 'test-support'], partialMatch: false },
      ],
      'boundaries/files': [{ category: 'test', pattern: '**/*.test.{ts,tsx}' }],
    },
    rules: {
      'boundaries/dependencies': [
        'error',
        {
          default: 'disallow',
          // Later policies override earlier ones for the same import.
          policies: [
            { from: { element: { type: 'shared' } }, allow: { to: { element: { type: 'shared' } } } },
            { from: { element: { type: 'main' } }, allow: { to: { element: { type: ['main', 'shared'] } } } },
            { from: { element: { type: 'preload' } }, allow: { to: { element: { type: ['preload', 'shared'] } } } },
            {
              from: { element: { type: 'renderer' } },
              allow: { to: { element: { type: ['renderer', 'renderer-feature', 'shared'] } } },
            },
            {
              from: { element: FEATURE },
              allow: {
                to: [
                  { element: { type: 'shared' } },
                  // Inside its own folder, anything.
                  { element: { ...FEATURE, captured: { feature: '{{ from.element.captured.feature }}' } } },
                  // Another feature folder only through its index, and never the app shell.
                  {
                    element: { ...FEATURE, captured: { feature: '!app' }, fileInternalPath: ['index.ts', 'index.tsx'] },
                  },
                ],
              },
            },
            // Tests reach across layers (they start main to drive a store, for instance)...
            {
              from: [{ file: { categories: 'test' } }, { element: { type: 'tests' } }],
              allow: { to: { element: { type: '*' } } },
            },
            // ...but a renderer unit test runs on the fake bridge: one that needs main lives under test/integration/.
            {
              from: { element: { type: ['renderer', 'renderer-feature'] }, file: { categories: 'test' } },
              disallow: { to: { element: { type: 'main' } } },
              message:
                'A renderer unit test uses the fake bridge; a test that starts main belongs in test/integration/.',
            },
          ],
        },
      ],
    },
  },
);

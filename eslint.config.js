// Lint: typescript-eslint's recommended rules (not the type-checked set: too slow on two cores), the import
// boundaries between layers and between ranked folders (RENDERER_RANKS, MAIN_RANKS below), and React's hooks rules.
// Boundaries rather than dependency-cruiser: it runs inside the one linter, on the imports ESLint has already parsed.
import js from '@eslint/js';
import boundaries from 'eslint-plugin-boundaries';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';
import { defineConfig } from 'eslint/config';

const FEATURE = { type: 'renderer-feature' };
const MAIN_FOLDER = { type: 'main-folder' };

/*
 * The ranking of folders: a folder imports folders of its own rank or below, never above (the import cycle test,
 * test/architecture/import-cycles.test.ts, catches a cycle within a rank). A folder not listed here has the rank
 * that holds DEFAULT_RANK: a new feature folder works there as it is; list it where it belongs when it needs a
 * folder above that rank, or a folder below the default needs it.
 */
const DEFAULT_RANK = '*';
const RENDERER_RANKS = [
  // The kit: stores and hooks, UI parts, the bridge to main.
  ['base', 'ui', 'bridge'],
  // What many features ask: commands and key bindings, dragging out, git status, workspace trust.
  ['commands', 'drag-out', 'git', 'trust'],
  // The editor and its contribution points (document views, overlays, menus).
  ['editor'],
  // Features on the editor; a new renderer/src/<folder> lands here.
  [
    'language',
    'timeline',
    'chat',
    'upload',
    'edit-assistant',
    'search',
    'quick-open',
    'hot-exit',
    'terminal',
    DEFAULT_RANK,
  ],
  // Features over features: the explorer, notebooks, the header, the agent, the outline and problems (over both).
  ['tree', 'notebook', 'header', 'agent', 'outline', 'problems'],
  // Features over notebooks: the debugger (its marks in cells, Debug Cell in the cell toolbar).
  ['debugger'],
  // The shell that puts them together and registers their contributions.
  ['app'],
];
const MAIN_RANKS = [
  // The kit: processes, the log, and folders that import nothing of main. So are main's own files errors.ts, events.ts and
  // router.ts (MAIN_KIT_FILES); services.ts, the composition root, is of the top rank, with the hosts.
  ['process', 'gutter', 'protected-paths', 'log'],
  // Services over the disk, the configuration and processes.
  [
    'workspace',
    'config',
    'prefs',
    'trust',
    'sandbox',
    'kernel',
    'models',
    'file-index',
    'terminal',
    'language-server',
    'git',
  ],
  // Services built on those; a new main/<folder> lands here.
  [
    'watcher',
    'changes',
    'history',
    'notebook',
    'notebook-export',
    'search',
    'upload',
    'download',
    'desktop',
    'edit-assistant',
    DEFAULT_RANK,
  ],
  // The workspace verbs and the assistant that calls them.
  ['verbs', 'agent'],
  // The composition root and the hosts (the MCP server is one: it serves the verbs on stdio).
  ['hosts', 'mcp'],
];
const MAIN_KIT_FILES = ['main/errors.ts', 'main/events.ts', 'main/router.ts'];

/** `disallow` policies for one ranking: each folder, none of the folders ranked above it. */
function rankPolicies(ranks, type, capture, what) {
  const listed = ranks.flat().filter((name) => name !== DEFAULT_RANK);
  const anyOf = (names) => `@(${names.join('|')})`;
  const defaultRank = ranks.findIndex((rank) => rank.includes(DEFAULT_RANK));
  return ranks.slice(0, -1).map((rank, r) => {
    const names = rank.filter((name) => name !== DEFAULT_RANK);
    const above = ranks.slice(r + 1).flat();
    const from = r === defaultRank ? `!${anyOf(ranks.filter((_, i) => i !== r).flat())}` : anyOf(names);
    // Below the default rank, an unlisted folder is above; at or past it, only the listed ones above are.
    const to = r < defaultRank ? `!${anyOf(listed.filter((name) => !above.includes(name)))}` : anyOf(above);
    return {
      from: { element: { type, captured: { [capture]: from } } },
      disallow: { to: { element: { type, captured: { [capture]: to } } } },
      message:
        `${what} of rank ${r} (${names.join(', ')}${r === defaultRank ? ', any folder not listed' : ''}) imports ` +
        `no folder ranked above it: see ${type === 'main-folder' ? 'MAIN_RANKS' : 'RENDERER_RANKS'} in eslint.config.js.`,
    };
  });
}

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
        // A folder of main (or one of its top-level files: errors.ts, router.ts...) before main as a whole.
        { type: 'main-folder', pattern: 'main/*', capture: ['folder'], partialMatch: false },
        { type: 'main', pattern: 'main', partialMatch: false },
        { type: 'preload', pattern: 'preload', partialMatch: false },
        { type: 'tests', pattern: ['e2e', 'bench', 'test', 'test-support'], partialMatch: false },
      ],
      'boundaries/files': [
        { category: 'test', pattern: '**/*.test.{ts,tsx}' },
        { category: 'main-kit', pattern: MAIN_KIT_FILES },
        { category: 'composition-root', pattern: 'main/services.ts' },
      ],
    },
    rules: {
      'boundaries/dependencies': [
        'error',
        {
          default: 'disallow',
          // Later policies override earlier ones for the same import.
          policies: [
            { from: { element: { type: 'shared' } }, allow: { to: { element: { type: 'shared' } } } },
            {
              from: { element: { type: ['main', 'main-folder'] } },
              allow: { to: { element: { type: ['main', 'main-folder', 'shared'] } } },
            },
            // Up the rankings, never (after the allows above, which they override).
            ...rankPolicies(MAIN_RANKS, 'main-folder', 'folder', 'A main folder'),
            {
              from: { element: { type: 'main' }, file: { categories: 'main-kit' } },
              disallow: { to: { element: { ...MAIN_FOLDER, captured: { folder: `!@(${MAIN_RANKS[0].join('|')})` } } } },
              message: `${MAIN_KIT_FILES.join(', ')} are main's kit: they import only folders of rank 0 (MAIN_RANKS).`,
            },
            {
              from: { element: { ...MAIN_FOLDER, captured: { folder: `!@(${MAIN_RANKS.at(-1).join('|')})` } } },
              disallow: { to: { file: { categories: 'composition-root' } } },
              message: 'Only the hosts import main/services.ts, the composition root.',
            },
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
            ...rankPolicies(RENDERER_RANKS, 'renderer-feature', 'feature', 'A renderer feature'),
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

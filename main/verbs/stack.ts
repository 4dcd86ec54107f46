import path from 'node:path';
import { DisposableStore, toDisposable } from '../../shared/base/lifecycle';
import { ConfigService, type ConfigServiceOptions } from '../config';
import {
  followingExcludes,
  historyCreationRecorder,
  historyRecorder,
  HistoryStore,
  UnsavedAgentEdits,
} from '../history';
import { JupyterServerManager, KernelEnvironments, jupyterSource } from '../kernel';
import { createLogger } from '../log';
import { NotebookService } from '../notebook';
import { DEFAULT_SANDBOX_SETTINGS } from '../sandbox';
import { WorkspaceTrust } from '../trust';
import { Workspace, type WorkspaceOptions } from '../workspace';
import { NotebookServiceVerbTarget, type NotebookAdapterOptions } from './notebook-adapter';
import type { RecoveredRun } from './interrupted-runs';
import { Verbs } from './verbs';

const log = createLogger('verbs.stack');

export interface VerbStackOptions {
  /** The workspace folder (any form; it is resolved and realpath'd). */
  root: string;
  trash?: WorkspaceOptions['trash'];
  /** Kiln's own file operations, as they happen (the app's change feed). */
  onChange?: WorkspaceOptions['onChange'];
  /** The app's user-level config and its hot reload; the MCP server reads the project config once. */
  config?: Omit<ConfigServiceOptions, 'workspaceRoot' | 'projectTrusted'>;
  /** The app's data folder, where the operator's trusted folders are listed (main/trust). */
  dataDir: string;
  /** Kiln's private Jupyter folders (the app's data folder); default: the Jupyter server's own default. */
  jupyterStateDir?: string;
  /** Overrides the Jupyter command of the `jupyter:` config block (and any remote server it names). */
  jupyterCommand?: string[];
  /** The Python of run-file / execute-code; default: the interpreter Jupyter runs on. */
  python?: string;
  /** Start a notebook's kernel when it opens (the app) or at its first run (the MCP server). */
  autoStartKernel?: boolean;
  /** How the notebook verbs save and re-read; see NotebookAdapterOptions. */
  notebookVerbs?: Omit<NotebookAdapterOptions, 'notebooks'>;
  /** Test flag: the wall limit of run-file / execute-code (escape tests wait out a short one, not 60 s). */
  runLimitMs?: number;
}

/** The services the workspace verbs stand on, built once for every front-end. */
export interface VerbStack {
  readonly workspace: Workspace;
  /** Local history: every file Kiln replaces or deletes is kept here first (the app and MCP servers share it). */
  readonly history: HistoryStore;
  /** Whether a path is left out of local history (`watch.exclude`, `.git`, `node_modules`). */
  historyExcluded(rel: string): boolean;
  /** An Agent turn's changes to notebooks open with unsaved edits (not saved, so not in local history). */
  readonly unsavedAgentEdits: UnsavedAgentEdits;
  readonly config: ConfigService;
  /** Whether the operator trusts this folder; until then its config starts no program and reaches no server. */
  readonly trust: WorkspaceTrust;
  readonly jupyter: JupyterServerManager;
  readonly notebooks: NotebookService;
  /** The Python environments kernels can run in (the workspace's venvs, conda's); their kernelspecs Kiln writes. */
  readonly environments: KernelEnvironments;
  readonly verbs: Verbs;
  /**
   * Runs a dead Kiln cut short on this workspace, their writes applied at start (in the background: start-up does
   * not wait for them); settles with what was applied.
   */
  readonly recoveredRuns: Promise<RecoveredRun[]>;
  /** Stops runs, then kernels, then the Jupyter server, so no process outlives it. */
  dispose(): Promise<void>;
}

/**
 * Builds workspace, config, Jupyter, notebooks and verbs for one folder. The app's services and the MCP
 * server both call this, so an external agent gets exactly the verbs Kiln's own agent has.
 */
export async function createVerbStack(options: VerbStackOptions): Promise<VerbStack> {
  // Everything below registers here as it is made, and is released newest first: runs, then kernels,
  // then the Jupyter server, then the config.
  const owned = new DisposableStore();
  const workspace = await Workspace.open({
    root: options.root,
    trash: options.trash,
    onChange: options.onChange,
    // Local history keeps what every write replaces (the store is made just below, from the realpath'd root).
    beforeReplace: (replaced) => keepReplaced(replaced),
    keepCreated: (created) => keepCreated(created),
  });
  const history = new HistoryStore({ dataDir: options.dataDir, root: workspace.root });
  owned.add(toDisposable(() => history.dispose()));
  // What a batch left half made when Kiln died goes first; then the size cap, once at start.
  void history.sweepLeftovers().then(() => history.pruneInBackground());
  // Follows the config's `watch.exclude` as it changes, never an untrusted project's (the config is made just below).
  const historyExcluded = followingExcludes(() => config.current().historyExclude);
  const keepReplaced = historyRecorder({ store: history, excluded: historyExcluded });
  const keepCreated = historyCreationRecorder({ store: history, excluded: historyExcluded });
  const trust = await WorkspaceTrust.open({
    dataDir: options.dataDir,
    folder: workspace.root,
    onChange: async (trusted) => {
      await config.reload();
      // The decision is done when Jupyter runs from the source trust allows (a revoked project's command is stopped)
      // and kernels follow it: they may start once trusted, and are shut down when it is revoked.
      await jupyter
        .reconfigure(jupyterSetting())
        .catch(
          log.caught(
            'Jupyter could not switch source on a trust change; the server status says so and the next start retries',
            undefined,
            'warn',
          ),
        );
      await notebooks.trustChanged(trusted);
      await environments
        .trustChanged()
        .catch(
          log.caught(
            'rescanning Python environments after a trust change failed; the next change rescans',
            undefined,
            'warn',
          ),
        );
    },
  });
  const config = owned.add(
    new ConfigService({ ...options.config, workspaceRoot: workspace.root, projectTrusted: () => trust.trusted }),
  );
  await config.start();
  // --jupyter overrides the config; else the jupyter: block as trust allows it, followed as it changes.
  const jupyterSetting = () =>
    options.jupyterCommand ? { command: options.jupyterCommand } : jupyterSource(config.current().jupyter);
  // The Jupyter server starts lazily, when the first notebook needs a kernel.
  const jupyter = new JupyterServerManager({
    rootDir: workspace.root,
    stateDir: options.jupyterStateDir,
    ...jupyterSetting(),
  });
  // A server or kernel already gone by shutdown is not a failure of the shutdown.
  owned.add(
    toDisposable(() =>
      jupyter.dispose().catch(log.caught('a Jupyter server or kernel already gone at shutdown', undefined)),
    ),
  );
  // Registered with the server before it can start, so its kernelspecs are there from the first start.
  const environments = owned.add(
    new KernelEnvironments({ root: workspace.root, dataDir: options.dataDir, trusted: () => trust.trusted, jupyter }),
  );
  // Trust granted or revoked, or the block edited: Jupyter restarts on the new source when it changed.
  owned.add(
    config.onDidChange(
      () =>
        void jupyter
          .reconfigure(jupyterSetting())
          .catch(
            log.caught(
              'Jupyter could not switch source on a config change; the server status says so and the next start retries',
              undefined,
              'warn',
            ),
          ),
    ),
  );
  const notebooks = new NotebookService({
    workspace,
    jupyter,
    autoStartKernel: options.autoStartKernel,
    trusted: () => trust.trusted,
  });
  owned.add(
    toDisposable(() =>
      notebooks
        .dispose()
        .catch(
          log.caught(
            'closing the notebooks failed at shutdown; shutdown goes on so the Jupyter server is still stopped',
            undefined,
            'warn',
          ),
        ),
    ),
  );
  const unsavedAgentEdits = new UnsavedAgentEdits();
  const verbs = owned.add(
    new Verbs({
      workspace,
      notebooks: new NotebookServiceVerbTarget({
        ...options.notebookVerbs,
        notebooks,
        onUnsavedChange: (notebook, before, after, diskHash) =>
          unsavedAgentEdits.noteChange(notebook, before, after, diskHash),
      }),
      python: options.python,
      // History, backups, trust decisions and the user config: agents in a workspace that holds them must not read
      // or forge them (protected for the verbs, masked in the sandbox, refused when a run's writes are applied).
      privateDirs: [options.dataDir, ...(options.config?.userConfigPath ? [options.config.userConfigPath] : [])],
      // A run's writes are staged here and applied through the workspace, so history and undo cover them.
      stageRunWritesIn: path.join(options.dataDir, 'runs'),
      jupyterCommand: () => jupyterSetting().command,
      timeouts: options.runLimitMs ? { runMs: options.runLimitMs } : undefined,
      trusted: () => trust.trusted,
      sandboxSettings: () => config.current().sandbox ?? DEFAULT_SANDBOX_SETTINGS,
    }),
  );
  const recoveredRuns = verbs
    .recoverInterruptedRuns()
    .catch(
      log.caught(
        'recovering interrupted runs failed; start-up goes on, and a run not applied whole stays in its staging folder',
        [],
        'warn',
      ),
    );
  owned.add(toDisposable(() => recoveredRuns.then(() => undefined)));
  return {
    workspace,
    history,
    recoveredRuns,
    historyExcluded,
    unsavedAgentEdits,
    config,
    trust,
    jupyter,
    notebooks,
    environments,
    verbs,
    dispose: () => owned.dispose(),
  };
}

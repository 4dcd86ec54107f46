import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { DisposableStore, toDisposable } from '../shared/base/lifecycle';
import { Emitter } from '../shared/base/event';
import { AgentService, agentHandlers } from './agent';
import { ChangeFeed } from './changes';
import { configHandlers } from './config';
import { EditAssistantService, editAssistantHandlers } from './edit-assistant';
import { RunEngine } from './models';
import {
  kernelAssistHandlers,
  notebookDiffHandlers,
  notebookDiffSources,
  notebookHandlers,
  NotebookMergeService,
  notebookMergeHandlers,
  variablesHandlers,
  dataViewerHandlers,
} from './notebook';
import { kernelEnvironmentHandlers } from './kernel';
import { notebookExportHandlers } from './notebook-export';
import { createVerbStack, verbsHandlers, type VerbStackOptions } from './verbs';
import { EventHub } from './events';
import { FileIndex, quickOpenHandlers } from './file-index';
import { ReplaceService, SearchService, replaceHandlers, searchHandlers } from './search';
import { GitService, gitHandlers } from './git';
import {
  BackupStore,
  HistoryService,
  NotebookBackups,
  WindowCloseState,
  historyHandlers,
  windowCloseHandlers,
} from './history';
import { TerminalService, terminalHandlers } from './terminal';
import { LanguageService, findNotebookInterpreter, languageHandlers, type NodeScriptLauncher } from './language-server';
import { NotebookLanguage } from './language-server/notebook';
import { PrefsService, type KeyValueStore } from './prefs';
import { DebuggerService } from './debugger';
import { TrustStateService, insideGitRepository } from './trust';
import type { Handlers } from './router';
import { KilnError } from '../shared/errors';
import { WatchService, type FolderWatchFactory } from './watcher';
import { uploadHandlers } from './upload';
import { createLogger, logHandlers } from './log';
import { osTrash, workspaceHandlers, type ShownPath, type Workspace, type WorkspaceOptions } from './workspace';

const log = createLogger('services');

export interface ServiceOptions {
  /** The workspace folder the operator opened. */
  root: string;
  /** The app's own data folder (sessions, Jupyter runtime files); never inside the workspace. */
  dataDir: string;
  /** electron-store under Electron, conf under the web host. */
  prefsStore: KeyValueStore;
  /** Overrides the OS trash (tests point it at a temp folder). */
  trash?: WorkspaceOptions['trash'];
  /** Overrides how a folder is watched (tests inject an OS that refuses watches). */
  watchFolder?: FolderWatchFactory;
  /** A test seam for the search-cancel e2e (SearchServiceOptions.holdSearchesAfter). */
  holdSearchesAfter?: number;
  /** A test flag: the agent runs' wall limit (VerbStackOptions.runLimitMs). */
  runLimitMs?: number;
  /** How the Electron host runs the language server (utilityProcess); absent: main's own Node runtime. */
  nodeScriptLauncher?: NodeScriptLauncher;
  /** How the Agent's notebook verbs save (VerbStackOptions.notebookVerbs); default: only a clean notebook. */
  notebookVerbs?: VerbStackOptions['notebookVerbs'];
}

export interface Services {
  readonly workspace: Workspace;
  readonly hub: EventHub;
  /** The one change feed: Kiln's own operations and the watcher's observations, echoes dropped. */
  readonly changes: ChangeFeed;
  readonly handlers: Handlers;
  /** The window's dirty tabs and its close after Save All (the Electron host asks on close with hot exit off). */
  readonly windowClose: WindowCloseState;
  /** The `hotExit` preference now. */
  hotExit(): boolean;
  /** Resolves when the watcher's first walk is done (tests and benches; start-up never waits for it). */
  watching(): Promise<void>;
  dispose(): Promise<void>;
}

/**
 * Builds the whole service graph for one workspace. Both hosts call this and add only transport,
 * so the Electron app, the web host and the tests all run the same code.
 */
export async function createServices(options: ServiceOptions): Promise<Services> {
  // Each part registers here as it is made; dispose releases them newest first, so nothing is stopped
  // while a part made after it (and so possibly using it) still runs. The verb stack goes last: runs,
  // then kernels, then the Jupyter server, so no process outlives Kiln.
  const owned = new DisposableStore();
  const hub = owned.add(new EventHub());
  const changes = owned.add(new ChangeFeed({ root: await realpath(path.resolve(options.root)) }));
  // Announced before main's owners follow a change (they may announce their own in following it): the renderer
  // hears of a change first. Every other service event is in the one table below (hub.announce).
  owned.add(hub.announce({ 'fs.change': changes.onDidChange }));
  // Workspace, config, Jupyter, notebooks and verbs: the same stack the MCP server builds.
  const stack = await createVerbStack({
    root: options.root,
    trash: options.trash ?? osTrash,
    onChange: (change, disk) => changes.reportOwn(change, disk),
    config: { userConfigPath: path.join(options.dataDir, 'config.yaml') },
    jupyterStateDir: path.join(options.dataDir, 'jupyter'),
    dataDir: options.dataDir,
    runLimitMs: options.runLimitMs,
    notebookVerbs: options.notebookVerbs,
  });
  owned.add(stack);
  const { workspace, config, notebooks, verbs, trust } = stack;
  // Restricted mode names what it holds back beyond config keys; both facts are found once, off the start-up path.
  const trustState = owned.add(
    new TrustStateService({
      trust,
      withheld: () => config.current().withheld,
      onDidChangeConfig: config.onDidChange,
      facts: Promise.all([insideGitRepository(workspace.root), verbs.sandbox.status()]).then(
        ([inGitRepository, sandbox]) => ({ inGitRepository, sandboxAvailable: sandbox.available }),
      ),
    }),
  );
  owned.add(trust);
  const prefs = owned.add(new PrefsService(options.prefsStore));
  notebooks.recordTimingWhen(() => prefs.get().notebookRecordTiming);
  const debuggers = new DebuggerService({
    notebooks,
    root: workspace.root,
    store: options.prefsStore,
    trusted: () => trust.trusted,
    remoteKernels: () => stack.jupyter.isRemote,
    // Called once the watcher below exists (at its creation, then on each change of the files' breakpoints).
    followFiles: (rels) => watcher.keepIdentities(rels),
  });
  // Breakpoints in files follow renames, moves and deletes.
  owned.add(changes.onDidChange((change) => void debuggers.applyChange(change)));
  // One run engine for every session kind.
  const engine = owned.add(new RunEngine());
  const edits = owned.add(
    new EditAssistantService({
      files: workspace,
      workspaceRoot: workspace.root,
      config,
      dataDir: options.dataDir,
      engine,
      unsavedNotebook: (rel) => notebooks.unsavedText(rel),
    }),
  );
  // The Agent (session kind `workspace`): acts through the verbs, on the same engine as the edits.
  const agent = owned.add(
    new AgentService({
      verbs,
      workspaceRoot: workspace.root,
      config,
      dataDir: options.dataDir,
      engine,
      interruptNotebook: (notebook) => notebooks.interrupt(notebook),
    }),
  );
  // Local history (kept by the workspace's hook in the stack): the Timeline's channels, and the feed followed.
  const history = new HistoryService({
    store: stack.history,
    backups: new BackupStore({ dataDir: options.dataDir, root: workspace.root }),
    workspace,
    excluded: stack.historyExcluded,
    unsavedNotebookText: (rel) => notebooks.unsavedText(rel, true),
    unsavedAgentEdits: stack.unsavedAgentEdits,
  });
  owned.add(changes.onDidChange((change) => void history.applyChange(change)));
  // Hot exit for notebooks, from main's model; a graceful shutdown writes what is pending before notebooks close.
  // An Agent turn's unsaved notebook changes are kept beside the notebook's backup, and go when it goes.
  stack.unsavedAgentEdits.persistIn(history.backups);
  owned.add({ dispose: () => stack.unsavedAgentEdits.flush() });
  const notebookBackups = new NotebookBackups(history.backups, undefined, (rel) =>
    stack.unsavedAgentEdits.backupDiscarded(rel),
  );
  notebookBackups.snapshotFrom((rel) => notebooks.backupOf(rel));
  notebooks.keepBackupsIn(notebookBackups);
  owned.add({ dispose: () => notebookBackups.flush() });
  const windowClose = owned.add(new WindowCloseState(history.backups, notebookBackups));
  // Owners of path-keyed state in main follow the feed themselves; nobody tells them after a move.
  owned.add(
    changes.onDidChange(
      (change) =>
        void edits
          .applyChange(change)
          .catch(
            log.caught(
              "an edit session's saved record could not follow a move or delete; the session in memory did",
              undefined,
              'warn',
            ),
          ),
    ),
  );
  owned.add(changes.onDidChange((change) => notebooks.applyChange(change)));
  // The kernel picker's environments: a new .venv is seen through the feed, not a watch of its own.
  owned.add(changes.onDidChange((change) => stack.environments.applyChange(change)));
  // What the operator is shown through the workspace channels: the watcher and local history follow it.
  const shown = owned.add(new Emitter<ShownPath>());
  owned.add(history.followOpened(shown.event));
  // Start-up never waits for the watcher's walk: the window and the first listing come first. It follows the
  // config's watchExclude itself.
  const watcher = owned.add(
    new WatchService({
      root: workspace.root,
      ledger: workspace.ledger,
      exclude: () => config.current().watchExclude,
      onDidChangeConfig: config.onDidChange,
      onDidShow: shown.event,
      watchFolder: options.watchFolder,
    }),
  );
  owned.add(watcher.onDidChange((change) => void changes.reportObserved(change)));
  // Breakpoints follow their file also when another program renames or moves it: the watcher knows those files.
  void debuggers.followFiles();
  // Temp files of a save or copy cut short by a kill; swept in the background (start-up never waits),
  // skipping what the watcher skips, so .git and node_modules are not walked for them.
  const sweeping = new AbortController();
  const sweep = workspace
    .sweepStaleTemps(sweeping.signal, (rel) => watcher.excludes(rel))
    .catch(log.caught('sweeping stale temp files failed; they are swept at the next start', []));
  owned.add(
    toDisposable(async () => {
      sweeping.abort();
      await sweep;
    }),
  );
  // Quick Open's index: scanned in the background from its first use, then kept current from the change feed.
  const fileIndex = owned.add(
    new FileIndex({
      root: workspace.root,
      excluded: (rel) => watcher.excludes(rel),
      excludedEntry: (rel, name) => watcher.excludesEntry(rel, name),
    }),
  );
  const search = owned.add(
    new SearchService({
      root: workspace.root,
      holdSearchesAfter: options.holdSearchesAfter,
      feedCoverage: () => watcher.coverage(),
    }),
  );
  owned.add(changes.onDidChange((change) => search.applyChange(change)));
  const replace = new ReplaceService({ workspace, notebooks });
  // Git decorations and the change gutter; no git or no repository means none, and no errors.
  const git = owned.add(
    new GitService({
      root: workspace.root,
      trusted: () => trust.trusted,
      onDidChangeTrust: trust.onDidChange,
    }),
  );
  owned.add(
    changes.onDidChange((change) => {
      fileIndex.applyChange(change);
      git.scheduleRefresh();
    }),
  );
  void git.start();
  // Terminals: the operator opened this workspace, so an untrusted one gets them too (without its src/ on PYTHONPATH).
  const terminals = owned.add(
    new TerminalService({
      root: workspace.root,
      trusted: () => trust.trusted,
    }),
  );

  // The Python language server: started by the first Python document, following the feed for files on disk.
  // Open notebooks are mirrored to it as virtual documents; their diagnostics are announced per notebook and cell.
  const language = owned.add(
    new LanguageService({
      root: workspace.root,
      dataDir: options.dataDir,
      enabled: () => prefs.get()['python.languageServer'] === 'on',
      diagnosticsScope: () => prefs.get()['python.diagnostics'],
      trusted: () => trust.trusted,
      onDidChangePrefs: prefs.onDidChange,
      onDidChangeTrust: trust.onDidChange,
      interpreter: () => findNotebookInterpreter(),
      readFile: async (rel) => {
        const content = await workspace.read(rel);
        if (content.text === null || content.truncated)
          throw new KilnError('E_TOO_LARGE', `${rel} is not text Kiln edits whole.`);
        return { text: content.text, hash: content.hash };
      },
      writeFile: async (rel, text, expectedHash) => {
        await workspace.write(rel, text, { origin: 'operator', expectedHash });
      },
      launcher: options.nodeScriptLauncher,
    }),
  );
  owned.add(changes.onDidChange((change) => language.applyChange(change)));
  const notebookLanguage = owned.add(new NotebookLanguage({ notebooks, server: language }));

  // The one table of service events announced on the wire; the hosts forward the hub's events to the renderers.
  owned.add(
    hub.announce({
      'fs.progress': workspace.onDidProgress,
      'config.changed': config.onDidChange,
      'watch.degraded': watcher.onDidDegrade,
      'watch.walked': watcher.onDidWalk,
      'history.changed': stack.history.onDidChange,
      'history.turnNotebook': stack.unsavedAgentEdits.onDidChangeTurnNotebook,
      'kernelEnvironments.changed': stack.environments.onDidChange,
      'trust.changed': trustState.onDidChange,
      'git.changed': git.onDidChange,
      'quickOpen.indexed': fileIndex.onDidIndex,
      'search.results': search.onDidFind,
      'search.done': search.onDidFinish,
      'notebook.output': notebooks.events.onDidChangeOutput,
      'notebook.cellState': notebooks.events.onDidChangeCellState,
      'notebook.kernelStatus': notebooks.events.onDidChangeKernelStatus,
      // A replace's edit of an open notebook's model goes out as the notebook service's own edits do.
      'notebook.changed': [notebooks.events.onDidChangeDocument, replace.onDidEditNotebook],
      'notebook.conflict': notebooks.events.onDidConflict,
      'notebook.dirty': notebooks.events.onDidChangeDirty,
      'notebook.inputRequest': notebooks.events.onDidRequestInput,
      'notebook.jupyterError': notebooks.events.onDidFailJupyter,
      'notebook.variablesChanged': notebooks.events.onDidChangeVariables,
      'terminal.data': terminals.onDidWrite,
      'terminal.exit': terminals.onDidExit,
      'language.statusChanged': language.onDidChangeStatus,
      // The server's diagnostics, a notebook's virtual document's placed in its cells.
      'language.diagnostics': notebookLanguage.onDidPublishDiagnostics,
      'editAssistant.delta': edits.onDidStream,
      'editAssistant.transcript': edits.onDidChangeTranscript,
      'editAssistant.proposal': edits.onDidChangeProposal,
      'editAssistant.runState': edits.onDidChangeRunState,
      'editAssistant.session': edits.onDidChangeSession,
      'agent.delta': agent.onDidStream,
      'agent.transcript': agent.onDidChangeTranscript,
      'agent.runState': agent.onDidChangeRunState,
      'agent.session': agent.onDidReplaceSession,
      'debugger.state': debuggers.onDidChangeState,
      'debugger.fileBreakpoints': debuggers.onDidChangeFileBreakpoints,
    }),
  );

  // Git's side of notebooks: merge conflicts, Open Changes, and HEAD for a notebook compare.
  const gitNotebooks = new NotebookMergeService({ git, files: workspace });
  const handlers: Handlers = {
    ...workspaceHandlers(workspace, shown),
    'watch.status': () => watcher.status(),
    'editor.gutter': ({ path, text }) => git.changesFor(path, text),
    'prefs.get': () => prefs.get(),
    'prefs.set': (changes) => prefs.set(changes),
    ...configHandlers(config),
    ...editAssistantHandlers(edits),
    ...agentHandlers(agent),
    ...notebookHandlers(notebooks),
    ...kernelAssistHandlers(notebooks),
    ...notebookDiffHandlers(notebookDiffSources(notebooks, workspace, (rel) => gitNotebooks.headText(rel))),
    ...variablesHandlers(notebooks),
    ...dataViewerHandlers(notebooks, workspace),
    ...debuggers.handlers(),
    ...kernelEnvironmentHandlers(stack.environments, notebooks),
    ...verbsHandlers(verbs),
    ...quickOpenHandlers(fileIndex),
    ...searchHandlers(search),
    ...replaceHandlers(replace),
    'trust.get': () => trustState.get(),
    'trust.set': ({ trusted }) => trustState.set(trusted),
    ...gitHandlers(git),
    ...notebookMergeHandlers(gitNotebooks),
    ...terminalHandlers(terminals),
    ...historyHandlers(history),
    ...notebookExportHandlers(stack.jupyter),
    ...windowCloseHandlers(windowClose),
    ...uploadHandlers(workspace, { localPaths: false }),
    ...logHandlers(options.dataDir),
    // The web host answers this itself (main/hosts/web); the desktop app saves files without a URL.
    'download.ticket': () => {
      throw new KilnError('E_BAD_REQUEST', 'Download tickets are for the web host; the desktop app saves files itself');
    },
    ...notebookLanguage.handlers(languageHandlers(language)),
  };

  return {
    workspace,
    hub,
    changes,
    handlers,
    windowClose,
    hotExit: () => prefs.get().hotExit,
    watching: () => watcher.ready,
    dispose: () => owned.dispose(),
  };
}

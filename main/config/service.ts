import { watch, type FSWatcher } from 'chokidar';
import { statSync, watch as fsWatch, type FSWatcher as NodeFsWatcher } from 'node:fs';
import path from 'node:path';
import type { ConfigIssue, ConfigState, ModelAliasInfo } from '../../shared/contract';
import { Emitter, type Event } from '../../shared/base/event';
import { SerialQueue } from '../../shared/base/serial-queue';
import { KilnError } from '../../shared/errors';
import { logListenerError } from '../events';
import {
  loadConfig,
  type ConfigFileLocation,
  type LoadResult,
  type ModelConfig,
  type PromptedBlock,
  type ResolvedConfig,
} from './load';

export interface ConfigServiceOptions {
  /** The workspace root (absolute); the project config is `<root>/.kiln/config.yaml`. */
  workspaceRoot: string;
  /** The user-level config (e.g. `<app data>/config.yaml`); its `config:/` refs resolve under its folder. */
  userConfigPath?: string;
  /** Hot reload on changes under `.kiln/` and the user config's folder (default true). */
  watch?: boolean;
  /** Whether the workspace is trusted (main/trust); untrusted, the project's models and jupyter blocks are not used. */
  projectTrusted: () => boolean;
}

export const PROJECT_CONFIG_PATH = '.kiln/config.yaml';

const EMPTY: ResolvedConfig = {
  models: {},
  fileEditing: null,
  agent: null,
  jupyter: null,
  withheld: [],
  watchExclude: null,
  historyExclude: null,
  sandbox: null,
};

/**
 * The project config, validated and hot-reloaded. An invalid config keeps the last valid one
 * running and exposes the problem (getter + onDidChange), so a typo never disables a working panel.
 */
export class ConfigService {
  private readonly files: ConfigFileLocation[];
  private readonly changed = new Emitter<ConfigState>({ onListenerError: logListenerError });
  /** The effective config or its problems changed (not fired for file events that change nothing). */
  readonly onDidChange: Event<ConfigState> = this.changed.event;
  private config: ResolvedConfig = EMPTY;
  private issues: ConfigIssue[] = [];
  private lastFingerprint = '';
  private readonly watchers: FSWatcher[] = [];
  private userWatcher?: FSWatcher;
  private rootWatcher?: NodeFsWatcher;
  private kilnWatcher?: FSWatcher;
  private readonly watchedUserRefs = new Set<string>();
  private reloadTimer?: NodeJS.Timeout;
  // One load at a time, in order; a load that fails leaves the next one to run as usual.
  private readonly reloads = new SerialQueue();
  private disposed = false;

  constructor(private readonly options: ConfigServiceOptions) {
    const kilnDir = path.join(options.workspaceRoot, '.kiln');
    this.files = [];
    if (options.userConfigPath) {
      this.files.push({
        source: 'user',
        file: options.userConfigPath,
        refRoot: path.dirname(options.userConfigPath),
        displayName: options.userConfigPath,
      });
    }
    this.files.push({
      source: 'project',
      file: path.join(kilnDir, 'config.yaml'),
      refRoot: kilnDir,
      displayName: PROJECT_CONFIG_PATH,
    });
  }

  /** Loads once and starts watching. Resolves when the first load is done and the watcher is ready. */
  async start(): Promise<void> {
    await this.reload();
    if (this.options.watch === false) return;
    const root = this.options.workspaceRoot;
    // The root is watched only to see `.kiln/` come or go: one plain watch whose events name the entry. (A chokidar
    // watch of the root re-reads the whole root on every event there, and a 1 GB upload into it makes hundreds.)
    try {
      this.rootWatcher = fsWatch(root, (_event, name) => {
        if (name !== null && name !== '.kiln') return;
        void this.watchKilnDir();
        this.scheduleReload();
      });
      this.rootWatcher.on('error', () => this.rootWatcher?.close());
    } catch {
      // expected: out of watches (ENOSPC, EMFILE): the watcher says so for the workspace; .kiln/ as it is now is still watched.
    }
    const kilnReady = this.watchKilnDir();
    if (this.options.userConfigPath) {
      // The user folder is the app's data folder (sessions, runtime files): only its top-level
      // config-ish files, plus the prompt files the user config references (added after each load).
      const userWatcher = watch(path.dirname(this.options.userConfigPath), {
        ignoreInitial: true,
        depth: 0,
        ignored: (p: string, stats?: { isFile(): boolean }) =>
          Boolean(stats?.isFile()) && !/\.(ya?ml|md|txt)$/i.test(p),
      });
      this.userWatcher = userWatcher;
      this.watchers.push(userWatcher);
      this.watchUserRefs();
    }
    for (const w of this.watchers) {
      w.on('all', () => this.scheduleReload());
    }
    await Promise.all([
      kilnReady,
      ...this.watchers.map((w) => new Promise<void>((resolve) => w.once('ready', () => resolve()))),
    ]);
  }

  /**
   * (Re)watches `.kiln/`, which may not exist yet or may be a new folder under the old name. What was written in
   * it before the watch was ready is read by the reload that follows.
   */
  private watchKilnDir(): Promise<void> {
    void this.kilnWatcher?.close();
    this.kilnWatcher = undefined;
    const kilnDir = path.join(this.options.workspaceRoot, '.kiln');
    // Only a folder that is there: chokidar watches a missing path through its parent, the root again.
    if (this.disposed || !statSync(kilnDir, { throwIfNoEntry: false })?.isDirectory()) return Promise.resolve();
    const watcher = watch(kilnDir, { ignoreInitial: true });
    this.kilnWatcher = watcher;
    watcher.on('all', () => this.scheduleReload());
    return new Promise<void>((resolve) =>
      watcher.once('ready', () => {
        if (this.kilnWatcher === watcher) this.scheduleReload();
        resolve();
      }),
    );
  }

  /** The last valid config (empty when none has loaded yet). */
  current(): ResolvedConfig {
    return this.config;
  }

  /** The problem with the latest load, or null. */
  error(): ConfigIssue | null {
    return this.issues[0] ?? null;
  }

  state(): ConfigState {
    const c = this.config;
    const block = (b: PromptedBlock | null) => ({
      enabled: b !== null,
      model: b?.model ?? null,
      source: b?.source ?? null,
      systemPromptRefs: b?.systemPromptRefs ?? [],
    });
    return {
      fileEditing: block(c.fileEditing),
      agent: { ...block(c.agent), tools: c.agent?.tools ?? null },
      models: this.models(),
      error: this.error(),
      issues: this.issues,
      projectConfigPath: PROJECT_CONFIG_PATH,
      userConfigPath: this.options.userConfigPath ?? null,
    };
  }

  models(): ModelAliasInfo[] {
    return Object.values(this.config.models).map((m) => ({
      alias: m.alias,
      provider: m.provider,
      model: m.model,
      baseUrl: m.baseUrl ?? null,
      source: m.source,
    }));
  }

  /** The model config behind an alias; E_NO_MODEL when the alias is not configured. */
  model(alias: string): ModelConfig {
    const found = Object.hasOwn(this.config.models, alias) ? this.config.models[alias] : undefined;
    if (!found) throw new KilnError('E_NO_MODEL', `No model alias '${alias}' under models: in ${PROJECT_CONFIG_PATH}`);
    return found;
  }

  /** Re-reads the files now (the watcher calls this; tests and hosts may too). */
  reload(): Promise<void> {
    return this.reloads.run(() => this.loadOnce());
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    clearTimeout(this.reloadTimer);
    this.changed.dispose();
    this.rootWatcher?.close();
    await Promise.all([...this.watchers, this.kilnWatcher].map((w) => w?.close()));
    await this.reloads.whenIdle();
  }

  /** Prompt files of user-sourced blocks may sit in subfolders the shallow user watcher does not see. */
  private watchUserRefs(): void {
    if (!this.userWatcher || !this.options.userConfigPath) return;
    const userDir = path.dirname(this.options.userConfigPath);
    for (const block of [this.config.fileEditing, this.config.agent]) {
      if (block?.systemPromptSource !== 'user') continue;
      for (const ref of block.systemPromptRefs) {
        const abs = path.join(userDir, ...ref.slice('config:/'.length).split('/'));
        if (this.watchedUserRefs.has(abs)) continue;
        this.watchedUserRefs.add(abs);
        this.userWatcher.add(abs);
      }
    }
  }

  private scheduleReload(): void {
    if (this.disposed) return;
    clearTimeout(this.reloadTimer);
    // Editors save in bursts (truncate, write, rename); load once they settle.
    this.reloadTimer = setTimeout(() => void this.reload(), 60);
  }

  private async loadOnce(): Promise<void> {
    if (this.disposed) return;
    // A load that throws (unreadable file, bad ref) is shown as a config problem, like a typo would be.
    const result = await loadConfig(this.files, { projectTrusted: this.options.projectTrusted() }).catch(
      (err: unknown): LoadResult => ({
        ok: false,
        issues: [
          {
            file: PROJECT_CONFIG_PATH,
            key: '',
            message: `Cannot load the config: ${err instanceof Error ? err.message : String(err)}`,
            code: 'E_CONFIG',
          },
        ],
      }),
    );
    if (result.ok) {
      this.config = result.config;
      this.issues = [];
    } else {
      this.issues = result.issues;
    }
    this.watchUserRefs();
    // Announce only real changes: prompt text edits count, unrelated file events do not.
    const fingerprint = JSON.stringify([this.config, this.issues]);
    if (fingerprint === this.lastFingerprint) return;
    this.lastFingerprint = fingerprint;
    this.changed.fire(this.state());
  }
}

import { MemoryStore } from '../main/prefs';
import { dispatch } from '../main/router';
import { createServices, type ServiceOptions, type Services } from '../main/services';
import { trustFolder } from '../main/trust';
import type { RequestArgs, RequestChannel, RequestResult } from '../shared/contract';
import { ModelServer } from './model-server';
import type { NotebookSpec } from './nbformat-build';
import { makeTempDir, makeTempTree } from './temp-workspace';

/** The notebook the Agent-turn tests edit: a code cell, a run cell with its output, a markdown cell. */
export const AGENT_TURN_NOTEBOOK: NotebookSpec = {
  metadata: { kernelspec: { display_name: 'Python 3 (ipykernel)', language: 'python', name: 'python3' } },
  cells: [
    { id: 'c1', source: 'a = 1' },
    {
      id: 'c2',
      source: 'print(a)',
      execution_count: 1,
      outputs: [{ output_type: 'stream', name: 'stdout', text: '1\n' }],
    },
    { id: 'c3', type: 'markdown', source: '# Notes' },
  ],
};

/** The project config that points the Agent at the scripted model server. */
export function scriptedAgentConfig(url: string): string {
  return `models:\n  scripted:\n    provider: openai-compatible\n    base_url: ${url}\n    model: scripted-model\nagent:\n  model: scripted\n`;
}

/**
 * A trusted temp workspace (`files` as in `makeTempTree`) whose Agent talks to the scripted model server over real
 * HTTP, with main's whole service graph running on it (in-memory prefs, no OS trash, the watcher's walk done).
 * What the integration tests of Agent turns start from.
 */
export class ScriptedAgentWorkspace {
  private constructor(
    readonly root: string,
    readonly dataDir: string,
    readonly server: ModelServer,
    private current: Services,
    private readonly options: Pick<ServiceOptions, 'notebookVerbs'>,
    private readonly removeFolders: () => Promise<void>,
  ) {}

  /** `options`: as createServices takes them (the notebook verbs' autosave), for this run and every restart. */
  static async start(
    files: Record<string, string> = {},
    options: Pick<ServiceOptions, 'notebookVerbs'> = {},
  ): Promise<ScriptedAgentWorkspace> {
    const server = await ModelServer.start({ models: ['scripted-model'] });
    const workspace = await makeTempTree({ ...files, '.kiln/config.yaml': scriptedAgentConfig(server.url) });
    const data = await makeTempDir('kiln-data-');
    await trustFolder(data.dir, workspace.root);
    const services = await ScriptedAgentWorkspace.services(workspace.root, data.dir, options);
    return new ScriptedAgentWorkspace(workspace.root, data.dir, server, services, options, async () => {
      await workspace.cleanup();
      await data.cleanup();
    });
  }

  private static async services(
    root: string,
    dataDir: string,
    options: Pick<ServiceOptions, 'notebookVerbs'>,
  ): Promise<Services> {
    const services = await createServices({
      root,
      dataDir,
      prefsStore: new MemoryStore(),
      trash: async () => false,
      ...options,
    });
    await services.watching();
    return services;
  }

  get services(): Services {
    return this.current;
  }

  /** One request through the router, as the renderer sends it; a refusal throws with its code. */
  async call<C extends RequestChannel>(channel: C, args: RequestArgs<C>): Promise<RequestResult<C>> {
    const envelope = await dispatch(this.current.handlers, channel, args);
    if (!envelope.ok) throw Object.assign(new Error(envelope.error.message), { code: envelope.error.code });
    return envelope.value as RequestResult<C>;
  }

  /** Kiln quits and starts again on the same workspace and data folder. */
  async restart(): Promise<void> {
    await this.current.dispose();
    this.current = await ScriptedAgentWorkspace.services(this.root, this.dataDir, this.options);
  }

  async close(): Promise<void> {
    await this.current.dispose();
    await this.server.close();
    await this.removeFolders();
  }
}

/**
 * The workspace agent session end to end in main: real services (createServices), a real temp
 * workspace, the real AI SDK talking real HTTP to a scripted model on loopback, real Python and Jupyter.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ModelServer, reply, type ChatRequestBody } from '../../test-support/model-server';
import { nextEvent } from '../../test-support/event-hub';
import { until } from '../../test-support/until';
import type {
  AgentEntry,
  AgentSnapshot,
  AnyEvent,
  RequestArgs,
  RequestChannel,
  RequestResult,
} from '../../shared/contract';
import { MemoryStore } from '../../main/prefs';
import { findProcessesByMarker, isAlive } from '../../main/process';
import { dispatch } from '../../main/router';
import { createServices, type Services } from '../../main/services';
import { trustFolder } from '../../main/trust';
import { AUTHORING_VS_RUNNING_BLOCK } from '../../main/verbs/guide';

let root: string;
let dataDir: string;
let server: ModelServer;
let services: Services | null = null;
let events: AnyEvent[];

/** How long a Jupyter server and kernel may take to start on a loaded machine (25 s seen with 8 test runs at once). */
const KERNEL_START_MS = 90_000;
const CSV = 'region,amount\nnorth,10\nsouth,32\nnorth,5\n';
const NOTEBOOK = {
  cells: [{ cell_type: 'markdown', id: 'intro', metadata: {}, source: ['# Sales'] }],
  metadata: { kernelspec: { display_name: 'Python 3 (ipykernel)', language: 'python', name: 'python3' } },
  nbformat: 4,
  nbformat_minor: 5,
};
// Long enough that the chip's preview of it is cut: the transcript must never carry a whole file body.
const LOADERS_V1 = `"""Loaders for the sales data."""
import csv


def load_csv(path):
    """Rows of a CSV file as dicts (strings as read)."""
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def total(rows, column):
    return sum(float(row[column]) for row in rows)


if __name__ == "__main__":
    rows = load_csv("data/sales.csv")
    print("rows", len(rows))
`;
const EDIT_OLD = '    print("rows", len(rows))\n';
const EDIT_NEW = '    print("rows", len(rows))\n    print("total", total(rows, "amount"))\n';

function configYaml(extra: string): string {
  return `models:
  scripted:
    provider: openai-compatible
    base_url: ${server.url}
    model: scripted-model
${extra}`;
}

async function writeConfig(extra = 'agent:\n  model: scripted\n'): Promise<void> {
  await fs.mkdir(path.join(root, '.kiln'), { recursive: true });
  await fs.writeFile(path.join(root, '.kiln', 'config.yaml'), configYaml(extra));
}

async function start(): Promise<Services> {
  // The project config names the scripted model server: trusted, as the operator would.
  await trustFolder(dataDir, root);
  services = await createServices({ root, dataDir, prefsStore: new MemoryStore(), trash: async () => false });
  // Start-up does not wait for the watcher; these tests assert on its events.
  await services.watching();
  services.hub.onEvent((event) => events.push(event));
  return services;
}

async function call<C extends RequestChannel>(channel: C, args: RequestArgs<C>): Promise<RequestResult<C>> {
  const envelope = await dispatch(services!.handlers, channel, args);
  if (!envelope.ok) throw Object.assign(new Error(envelope.error.message), { code: envelope.error.code });
  return envelope.value as RequestResult<C>;
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    return (err as { code: string }).code;
  }
  throw new Error('expected a refusal');
}

const chips = (transcript: AgentEntry[]) =>
  transcript.filter((e): e is Extract<AgentEntry, { type: 'tool' }> => e.type === 'tool');
const label = (c: { verb: string; target: string | null; summary: string }) =>
  `${c.verb}${c.target ? ` ${c.target}` : ''} · ${c.summary}`;
const toolNames = (req: ChatRequestBody) => (req.tools ?? []).map((t) => t.function.name).sort();
const scripts = () => (existsSync(path.join(root, 'scripts')) ? readdirSync(path.join(root, 'scripts')).sort() : []);

function sessionEvents<T extends AnyEvent['channel']>(channel: T) {
  return events.filter((e) => e.channel === channel).map((e) => e.payload) as Array<
    Extract<AnyEvent, { channel: T }>['payload']
  >;
}

beforeEach(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'kiln-agent-ws-')));
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'kiln-agent-data-'));
  await fs.mkdir(path.join(root, 'data'));
  await fs.writeFile(path.join(root, 'data/sales.csv'), CSV);
  await fs.writeFile(path.join(root, 'analysis.ipynb'), JSON.stringify(NOTEBOOK, null, 1));
  server = await ModelServer.start({ models: ['scripted-model'] });
  events = [];
});

afterEach(async () => {
  await services?.dispose();
  services = null;
  await server.close();
  await fs.rm(root, { recursive: true, force: true });
  await fs.rm(dataDir, { recursive: true, force: true });
});

describe('workspace agent session: the full scenario on a small CSV', () => {
  it('writes src/loaders.py, edits it, runs it, imports it from a notebook; scripts/ holds only the run', async () => {
    await writeConfig();
    await start();
    server.setReplies([
      reply.tool('write-file', { path: 'src/loaders.py', content: LOADERS_V1 }, 'I will put the loader in src/.'),
      reply.tool('edit-file', { path: 'src/loaders.py', mode: 'replace', old: EDIT_OLD, new: EDIT_NEW }),
      reply.tool('run-file', { path: 'src/loaders.py' }),
      reply.tool('run-notebook-cell', {
        notebook_name: 'analysis.ipynb',
        source:
          'from loaders import load_csv, total\nrows = load_csv("data/sales.csv")\nprint("notebook total", total(rows, "amount"))',
      }),
      reply.text('Done: src/loaders.py loads the CSV; the notebook imports it.'),
    ]);

    const outcome = await call('agent.send', {
      text: 'Load data/sales.csv with a reusable loader and use it in the notebook.',
    });
    expect(outcome.status).toBe('completed');

    // src/ holds the module, edited in place.
    const module = readFileSync(path.join(root, 'src/loaders.py'), 'utf8');
    expect(module).toBe(LOADERS_V1.replace(EDIT_OLD, EDIT_NEW));
    // scripts/ records what ran, not what was typed: one run step, no write/edit steps.
    expect(scripts()).toEqual(['step_001_run_loaders.py']);
    expect(readFileSync(path.join(root, 'scripts/step_001_run_loaders.py'), 'utf8')).toContain('src/loaders.py');
    // The notebook cell imported the module and ran against the live kernel.
    const cells = (
      JSON.parse(readFileSync(path.join(root, 'analysis.ipynb'), 'utf8')) as {
        cells: Array<{ source: string | string[]; outputs?: Array<{ text?: string | string[] }> }>;
      }
    ).cells;
    const last = cells.at(-1)!;
    expect([last.source].flat().join('')).toContain('from loaders import');
    expect(JSON.stringify(last.outputs)).toContain('notebook total 47.0');

    // The model saw each verb's result before its next step (the multi-step loop is real).
    const afterRun = server.chatRequests[3];
    const toolMessages = afterRun.messages.filter((m) => m.role === 'tool').map((m) => JSON.stringify(m.content));
    expect(toolMessages.at(-1)).toContain('total 47.0');

    // The transcript: chips with verb, path and a result summary, in order, never the file body.
    const snapshot = await call('agent.open', {});
    const toolChips = chips(snapshot.transcript);
    expect(toolChips.map(label)).toEqual([
      `write-file src/loaders.py · ${Buffer.byteLength(LOADERS_V1)} bytes · new`,
      `edit-file src/loaders.py · 1 replacement · ${Buffer.byteLength(module)} bytes`,
      'run-file src/loaders.py · exit 0',
      'run-notebook-cell analysis.ipynb · ok · [1] · unsandboxed',
    ]);
    expect(toolChips.every((c) => c.status === 'ok')).toBe(true);
    expect(toolChips[2].resultPreview).toContain('rows 3');
    const content = toolChips[0].args.find((a) => a.name === 'content')!;
    expect(content.omitted).toBeGreaterThan(0);
    expect(JSON.stringify(snapshot.transcript)).not.toContain(LOADERS_V1);
    expect(snapshot.transcript.map((e) => e.type)).toEqual([
      'user',
      'assistant',
      'tool',
      'tool',
      'tool',
      'tool',
      'assistant',
    ]);
    expect(snapshot.runState).toBe('idle');

    // The harness taught the verbs prescriptively; the operator saw text stream.
    const system = String(server.chatRequests[0].messages.find((m) => m.role === 'system')?.content);
    expectAuthoringVsRunning(system);
    expect(sessionEvents('agent.delta').length).toBeGreaterThan(0);
  }, 120_000);
});

/** The "Authoring vs running" block, as the model receives it: its rules in its own words. */
function expectAuthoringVsRunning(system: string): void {
  expect(system).toContain(AUTHORING_VS_RUNNING_BLOCK);
  for (const rule of [
    // Kiln's own section, after the design's block. Working directories, truthfully: runs at the root, kernels in the notebook's folder.
    '## In Kiln',
    'A notebook cell can `import` from `src/`, and the kernel finds a module written after it started, without restart.',
    '`run-file` and `execute-code` run in a sandbox at the workspace root',
    "A notebook's kernel starts in the notebook's folder",
    '`src/` is importable from both',
  ]) {
    expect(system).toContain(rule);
  }
  expect(system).not.toMatch(/working directory of every run/);
}

describe('workspace agent session: allowlist', () => {
  it('offers only the verbs in agent.tools, and a call to another verb does nothing', async () => {
    await writeConfig('agent:\n  model: scripted\n  tools: [write-file, run-file]\n');
    await start();
    server.setReplies([reply.tool('execute-code', { code: 'open("pwned.txt", "w").write("x")' }), reply.text('ok')]);
    const snapshot = await call('agent.open', {});
    expect(snapshot.tools.sort()).toEqual(['run-file', 'write-file']);

    const outcome = await call('agent.send', { text: 'go' });
    expect(outcome.status).toBe('completed');
    expect(toolNames(server.chatRequests[0])).toEqual(['run-file', 'write-file']);
    // The block's verb list names only what is offered; its rules stay whole.
    const system = String(server.chatRequests[0].messages.find((m) => m.role === 'system')?.content);
    expect(system).toContain('- `run-file`: ');
    expect(system).not.toContain('- `execute-code`: ');
    expectAuthoringVsRunning(system);
    expect(existsSync(path.join(root, 'pwned.txt'))).toBe(false);
    expect(scripts()).toEqual([]);
    const [chip] = chips((await call('agent.open', {})).transcript);
    expect(chip.verb).toBe('execute-code');
    expect(chip.status).toBe('error');
    expect(chip.resultPreview).toMatch(/not offered/);
  }, 60_000);

  it('offers every verb when agent.tools is absent', async () => {
    await writeConfig();
    await start();
    server.setReplies([reply.text('hello')]);
    await call('agent.send', { text: 'hi' });
    expect(toolNames(server.chatRequests[0])).toEqual([
      'append-notebook-cell',
      'delete-notebook-cell',
      'edit-file',
      'edit-notebook-cell',
      'execute-code',
      'list-files',
      'read-file',
      'rerun-notebook-cell',
      'run-file',
      'run-notebook-cell',
      'write-file',
    ]);
  });
});

describe('workspace agent session: queueing and Stop', () => {
  it('queues a second message sent while a run is going, and runs it after, with the first in its history', async () => {
    await writeConfig();
    await start();
    server.setReplies([reply.slow('first answer '.repeat(20), 20), reply.text('second answer')]);
    const first = call('agent.send', { text: 'first question' });
    await until(() => sessionEvents('agent.delta').length > 0, 'the first run to stream');
    const second = call('agent.send', { text: 'second question' });

    const queuedEntry = await until(
      () =>
        sessionEvents('agent.transcript').find((p) => p.entry.type === 'user' && p.entry.text === 'second question'),
      'the second message in the transcript',
    );
    expect(queuedEntry.entry.type === 'user' && queuedEntry.entry.queued).toBe(true);
    expect(sessionEvents('agent.runState').some((s) => s.queued === 1)).toBe(true);

    expect((await first).status).toBe('completed');
    expect((await second).status).toBe('completed');
    expect(server.chatRequests).toHaveLength(2);
    const history = server.chatRequests[1].messages.map(
      (m) => `${m.role}:${typeof m.content === 'string' ? m.content : JSON.stringify(m.content)}`,
    );
    expect(history.some((m) => m.startsWith('user:first question'))).toBe(true);
    expect(history.some((m) => m.startsWith('assistant:') && m.includes('first answer'))).toBe(true);
    expect(history.at(-1)).toBe('user:second question');
    const snapshot = await call('agent.open', {});
    expect(snapshot.transcript.filter((e) => e.type === 'user').map((e) => e.type === 'user' && e.queued)).toEqual([
      false,
      false,
    ]);
  }, 60_000);

  it('Stop aborts the run, kills a running run-file and drops the queued message', async () => {
    await writeConfig();
    await fs.mkdir(path.join(root, 'src'));
    await fs.writeFile(
      path.join(root, 'src/sleepy.py'),
      'import os, time\nopen("sleepy.tmp", "w").write(str(os.getpid()))\nos.rename("sleepy.tmp", "sleepy.pid")\ntime.sleep(300)\n',
    );
    await start();
    server.setReplies([reply.tool('run-file', { path: 'src/sleepy.py' }), reply.text('never asked')]);
    const running = call('agent.send', { text: 'run it' });
    // The run's writes are staged in an overlay until it ends, so it is found by its step file's name, not its pid file.
    const step = path.join(root, 'scripts/step_001_run_sleepy.py');
    const pids = await until(async () => {
      const found = await findProcessesByMarker(step);
      return found.length > 0 ? found : null;
    }, 'the run-file process');
    const queued = call('agent.send', { text: 'and then this' });
    await until(() => sessionEvents('agent.runState').some((s) => s.queued === 1), 'the queued message');

    expect(await call('agent.stop', {})).toEqual({ stopped: true });
    expect((await running).status).toBe('stopped');
    expect((await queued).status).toBe('stopped');

    // Killed, not left to sleep on: the process is gone well before its 300 s are up.
    await until(() => pids.every((pid) => !isAlive(pid)), 'the run-file process to die');
    expect(server.chatRequests).toHaveLength(1);
    const snapshot = await call('agent.open', {});
    const [chip] = chips(snapshot.transcript);
    expect(chip.verb).toBe('run-file');
    expect(chip.status).toBe('error');
    expect(
      snapshot.transcript
        .filter((e) => e.type === 'marker')
        .map((e) => e.type === 'marker' && e.marker)
        .sort(),
    ).toEqual(['cancelled', 'stopped']);
    expect(snapshot.runState).toBe('idle');

    // The next message runs, and the model hears what the stopped run did.
    server.setReplies([reply.text('ok')]);
    expect((await call('agent.send', { text: 'what happened?' })).status).toBe('completed');
    expect(JSON.stringify(server.lastChatRequest!.messages)).toContain(
      'Stopped by the operator after: run-file src/sleepy.py',
    );
  }, 60_000);

  it(
    'Stop during a running notebook cell ends the run and the session takes the next message',
    async () => {
      await writeConfig();
      await start();
      server.setReplies([
        reply.tool('run-notebook-cell', {
          notebook_name: 'analysis.ipynb',
          source: 'import time\nprint("started", flush=True)\ntime.sleep(8)',
        }),
        reply.text('never asked'),
      ]);
      // The cell's own output says it runs. Awaited as an event, not polled against a clock: under load the Jupyter
      // server and kernel took 25 s to start, past the 15 s a poll for a file the cell writes waited (the flake).
      const started = nextEvent(
        services!.hub,
        'notebook.output',
        (output) => output.path === 'analysis.ipynb' && JSON.stringify(output.change).includes('started'),
        KERNEL_START_MS,
      );
      const running = call('agent.send', { text: 'run a slow cell' });
      await started;
      expect(await call('agent.stop', {})).toEqual({ stopped: true });
      expect((await running).status).toBe('stopped');
      // The run ends at Stop, while its verb still waits for the interrupted cell and then saves the notebook: the
      // file is read once that save is reported (reading at once raced the save under load).
      await until(
        () =>
          sessionEvents('fs.change').some(
            (change) => change.type === 'updated' && change.path === 'analysis.ipynb' && change.origin === 'agent',
          ),
        "the verb's save of the interrupted cell",
      );
      // The kernel was interrupted: the cell did not sleep on to its end.
      const nb = JSON.parse(readFileSync(path.join(root, 'analysis.ipynb'), 'utf8')) as {
        cells: Array<{ outputs?: unknown[] }>;
      };
      expect(JSON.stringify(nb.cells.at(-1)?.outputs ?? [])).toContain('KeyboardInterrupt');
      server.setReplies([reply.text('ok')]);
      expect((await call('agent.send', { text: 'next' })).status).toBe('completed');
    },
    KERNEL_START_MS + 60_000,
  );
});

describe('workspace agent session: persistence, Clear, errors', () => {
  it('survives a restart; Clear deletes it and the next message starts cold', async () => {
    await writeConfig();
    await start();
    server.setReplies([reply.tool('write-file', { path: 'src/a.py', content: 'A = 1\n' }), reply.text('wrote it')]);
    await call('agent.send', { text: 'remember the word apricot' });
    await services!.dispose();
    services = null;

    await start();
    const resumed = await call('agent.open', {});
    expect(resumed.transcript.map((e) => e.type)).toEqual(['user', 'tool', 'assistant']);
    expect(chips(resumed.transcript)[0].summary).toBe('6 bytes · new');
    server.setReplies([reply.text('apricot')]);
    await call('agent.send', { text: 'what was the word?' });
    const history = JSON.stringify(server.lastChatRequest!.messages);
    expect(history).toContain('remember the word apricot');
    expect(history).toContain('wrote it');

    expect(await call('agent.clear', {})).toEqual({ cleared: true });
    const cleared = sessionEvents('agent.session').at(-1)!.snapshot as AgentSnapshot;
    expect(cleared.transcript).toEqual([]);
    expect(readdirSync(path.join(dataDir, 'agent-sessions'))).toEqual([]);
    await services!.dispose();
    services = null;

    await start();
    expect((await call('agent.open', {})).transcript).toEqual([]);
    server.setReplies([reply.text('fresh')]);
    await call('agent.send', { text: 'hello again' });
    expect(JSON.stringify(server.lastChatRequest!.messages)).not.toContain('apricot');
  }, 60_000);

  it('without an agent: block the session is disabled and sending is refused with E_NO_MODEL', async () => {
    await writeConfig('');
    await start();
    const snapshot = await call('agent.open', {});
    expect(snapshot.enabled).toBe(false);
    expect(snapshot.tools).toEqual([]);
    expect(await refusal(call('agent.send', { text: 'hi' }))).toBe('E_NO_MODEL');
    expect(server.chatRequests).toHaveLength(0);
  });

  it('an unreachable model becomes an error entry in the transcript', async () => {
    await writeConfig();
    await start();
    await server.close();
    const outcome = await call('agent.send', { text: 'hi' });
    expect(outcome.status).toBe('error');
    expect(outcome.error?.code).toBe('E_MODEL');
    const snapshot = await call('agent.open', {});
    const error = snapshot.transcript.at(-1)!;
    expect(error.type === 'error' && error.message).toMatch(/Could not reach the model server/);
    expect(snapshot.runState).toBe('error');
    server = await ModelServer.start();
  });

  it('a verb refusal is an error chip and the model continues', async () => {
    await writeConfig();
    await start();
    server.setReplies([reply.tool('run-file', { path: 'src/missing.py' }), reply.text('That file does not exist.')]);
    const outcome = await call('agent.send', { text: 'run src/missing.py' });
    expect(outcome.status).toBe('completed');
    const [chip] = chips((await call('agent.open', {})).transcript);
    expect(chip.status).toBe('error');
    expect(chip.summary).toMatch(/does not exist/);
    expect(scripts()).toEqual([]);
    expect(JSON.stringify(server.lastChatRequest!.messages)).toMatch(/does not exist/);
  }, 60_000);
});

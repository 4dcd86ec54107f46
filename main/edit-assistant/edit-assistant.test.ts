import * as fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ModelServer, reply, type ChatRequestBody } from '../../test-support/model-server';
import { events as contractEvents, requests, type EventPayload } from '../../shared/contract';
import { KilnError } from '../../shared/errors';
import { ConfigService, configHandlers } from '../config';
import { dispatch, type Handlers } from '../router';
import { Workspace } from '../workspace';
import { EditAssistantService, editAssistantHandlers } from './index';
import { ORPHAN_RETENTION_MS, SessionStore } from './session-store';
import { freePort } from '../../test-support/free-port';
import { until } from '../../test-support/until';

type Recorded = { channel: string; payload: unknown };

let root: string;
let dataDir: string;
let server: ModelServer;
let workspace: Workspace;
let config: ConfigService;
let events: Recorded[];
const services: EditAssistantService[] = [];

const FILE = 'src/app.py';
const ORIGINAL = 'def greet(name):\n    print("hi", name)\n\ngreet("kiln")\n';
const RENAMED = 'def welcome(name):\n    print("hi", name)\n\nwelcome("kiln")\n';

async function writeConfig(extra = ''): Promise<void> {
  const down = await freePort();
  await fs.mkdir(path.join(root, '.kiln'), { recursive: true });
  await fs.writeFile(
    path.join(root, '.kiln', 'config.yaml'),
    `models:
  scripted:
    provider: openai-compatible
    base_url: ${server.url}
    model: scripted-model
  other:
    provider: openai-compatible
    base_url: ${server.url}
    model: other-model
  ghost:
    provider: openai-compatible
    base_url: ${server.url}
    model: ghost-model
  down:
    provider: openai-compatible
    base_url: http://127.0.0.1:${down}/v1
    model: scripted-model
  unset-key:
    provider: openai-compatible
    base_url: ${server.url}
    model: scripted-model
    api_key_env: KILN_TEST_UNSET_KEY
${extra}`,
  );
  await config.reload();
  expect(config.state().error).toBeNull();
}

function newService(): EditAssistantService {
  const svc = new EditAssistantService({
    files: workspace,
    workspaceRoot: workspace.root,
    config,
    dataDir,
  });
  svc.onDidStream((payload) => events.push({ channel: 'editAssistant.delta', payload }));
  svc.onDidChangeTranscript((payload) => events.push({ channel: 'editAssistant.transcript', payload }));
  svc.onDidChangeProposal((payload) => events.push({ channel: 'editAssistant.proposal', payload }));
  svc.onDidChangeRunState((payload) => events.push({ channel: 'editAssistant.runState', payload }));
  svc.onDidChangeSession((payload) => events.push({ channel: 'editAssistant.session', payload }));
  services.push(svc);
  return svc;
}

const disk = () => fs.readFile(path.join(root, FILE), 'utf8');
const lastRequest = (): ChatRequestBody => server.lastChatRequest!;
const systemText = (req: ChatRequestBody) => String(req.messages.find((m) => m.role === 'system')?.content ?? '');
const lastUserText = (req: ChatRequestBody) =>
  String(req.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '');

beforeEach(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'kiln-edit-')));
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'kiln-data-'));
  await fs.mkdir(path.join(root, 'src'));
  await fs.writeFile(path.join(root, FILE), ORIGINAL);
  server = await ModelServer.start({ models: ['scripted-model', 'other-model'] });
  workspace = await Workspace.open({ root });
  config = new ConfigService({ workspaceRoot: workspace.root, watch: false, projectTrusted: () => true });
  await config.start();
  events = [];
  await writeConfig('file_editing:\n  model: scripted\n');
});

afterEach(async () => {
  await Promise.all(services.splice(0).map((s) => s.dispose()));
  await config.dispose();
  await server.close();
  await fs.rm(root, { recursive: true, force: true });
  await fs.rm(dataDir, { recursive: true, force: true });
});

describe('edit session: ask, stream, propose', () => {
  it('streams text, turns propose_file into a chip, and leaves the disk alone', async () => {
    const svc = newService();
    const before = await fs.stat(path.join(root, FILE));
    await svc.openSession(FILE);
    server.enqueue(reply.propose(RENAMED, 'Renamed greet to welcome.'));

    const outcome = await svc.send(FILE, 'rename greet to welcome');
    expect(outcome.status).toBe('completed');
    expect(outcome.proposalId).toBeTruthy();
    // One model step per turn: the proposal ends it, the model is not asked again.
    expect(server.chatRequests).toHaveLength(1);

    // Streaming arrived in several deltas that add up to the text.
    const deltas = events
      .filter((e) => e.channel === 'editAssistant.delta')
      .map((e) => (e.payload as EventPayload<'editAssistant.delta'>).text);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe('Renamed greet to welcome.');

    const snap = await svc.openSession(FILE);
    expect(snap.transcript.map((e) => e.type)).toEqual(['user', 'assistant', 'proposal']);
    const chip = snap.transcript[2];
    expect(chip).toMatchObject({
      type: 'proposal',
      proposalId: outcome.proposalId,
      linesAdded: 2,
      linesRemoved: 2,
      status: 'pending',
    });
    // The chip never carries the file's text.
    expect(JSON.stringify(snap.transcript)).not.toContain('welcome("kiln")');
    expect(snap.latestProposalId).toBe(outcome.proposalId);
    expect(snap.runState).toBe('idle');

    const proposal = await svc.getProposal(FILE, outcome.proposalId!);
    expect(proposal.content).toBe(RENAMED);
    expect(proposal.baselineContent).toBe(ORIGINAL);

    // The run proposed; nothing reached the disk.
    expect(await disk()).toBe(ORIGINAL);
    expect((await fs.stat(path.join(root, FILE))).mtimeMs).toBe(before.mtimeMs);
  });

  it('sends the harness prompt (path, content, propose_file) and exactly one tool; no operator layer when none is configured', async () => {
    const svc = newService();
    server.enqueue(reply.text('It prints a greeting.'));
    await svc.send(FILE, 'what does this do?');
    const req = lastRequest();
    expect(req.stream).toBe(true);
    expect(req.model).toBe('scripted-model');
    const system = systemText(req);
    expect(system).toContain(`\`${FILE}\``);
    expect(system).toContain(ORIGINAL);
    expect(system).toContain('propose_file');
    expect(system).toContain('FULL new content');
    expect(system).not.toContain('Operator instructions');
    expect(req.messages.filter((m) => m.role === 'system')).toHaveLength(1);
    expect(req.tools?.map((t) => t.function.name)).toEqual(['propose_file']);
    expect(lastUserText(req)).toBe('what does this do?');
  });

  it('adds the operator system prompt as a separate layer after the harness', async () => {
    await fs.mkdir(path.join(root, '.kiln', 'prompts'), { recursive: true });
    await fs.writeFile(path.join(root, '.kiln', 'prompts', 'files.md'), 'Always keep type hints.');
    await writeConfig('file_editing:\n  model: scripted\n  system_prompt: [config:/prompts/files.md]\n');
    const svc = newService();
    server.enqueue(reply.text('ok'));
    await svc.send(FILE, 'hello');
    const system = systemText(lastRequest());
    expect(system.indexOf('propose_file')).toBeLessThan(system.indexOf('## Operator instructions'));
    expect(system.endsWith('## Operator instructions\n\nAlways keep type hints.')).toBe(true);
  });

  it('refuses to run when file editing is not configured', async () => {
    await writeConfig('');
    const svc = newService();
    const err = await svc.send(FILE, 'hello').catch((e: unknown) => e);
    expect((err as KilnError).code).toBe('E_NO_MODEL');
    expect(server.chatRequests).toHaveLength(0);
  });

  it('uses a per-session model override, and refuses an unknown alias', async () => {
    const svc = newService();
    server.enqueue(reply.text('ok'), reply.text('again'));
    await svc.send(FILE, 'hi', { modelOverride: 'other' });
    expect(lastRequest().model).toBe('other-model');
    // The override sticks to the session.
    await svc.send(FILE, 'hi again');
    expect(lastRequest().model).toBe('other-model');
    expect((await svc.openSession(FILE)).modelOverride).toBe('other');
    const err = await svc.send(FILE, 'x', { modelOverride: 'nope' }).catch((e: unknown) => e);
    expect((err as KilnError).code).toBe('E_NO_MODEL');
    const cleared = await svc.setModel(FILE, null);
    expect(cleared.model).toBe('scripted');
  });
});

describe('edit session: accept and reject', () => {
  it('accept writes the proposal through the workspace and advances the baseline', async () => {
    const svc = newService();
    const opened = await svc.openSession(FILE);
    server.enqueue(reply.propose(RENAMED), reply.text('noted'));
    const { proposalId } = await svc.send(FILE, 'rename');

    const accepted = await svc.acceptProposal(FILE, proposalId!);
    expect(await disk()).toBe(RENAMED);
    expect(accepted.snapshot.baselineHash).not.toBe(opened.baselineHash);
    expect(accepted.snapshot.baselineHash).toBe(accepted.hash);
    expect(accepted.snapshot.proposals[0].status).toBe('accepted');
    expect(accepted.snapshot.transcript.at(-1)).toMatchObject({ type: 'marker', marker: 'accepted' });

    // The model hears about it next turn; our own write is not mistaken for an external edit.
    await svc.send(FILE, 'thanks');
    const user = lastUserText(lastRequest());
    expect(user).toContain(`ACCEPTED proposal ${proposalId}`);
    expect(user).not.toContain('FILE CHANGED ON DISK');
    expect(systemText(lastRequest())).toContain(RENAMED);
  });

  it('refuses to accept over an external change (E_CHANGED_ON_DISK) and keeps the proposal; reviewed against the disk, it is accepted knowingly', async () => {
    const svc = newService();
    await svc.openSession(FILE);
    server.enqueue(reply.propose(RENAMED));
    const { proposalId } = await svc.send(FILE, 'rename');

    const external = `${ORIGINAL}# edited elsewhere\n`;
    await fs.writeFile(path.join(root, FILE), external);
    // The feed told the session at once: it adopts the disk as its baseline for the next turn...
    await svc.applyChange({ type: 'updated', path: FILE, isDir: false, origin: 'external' });
    expect((await svc.openSession(FILE)).baselineHash).toBe((await workspace.read(FILE)).hash);
    // ...but the proposal stays bound to what it was made against.
    const err = (await svc.acceptProposal(FILE, proposalId!).catch((e: unknown) => e)) as KilnError;
    expect(err).toBeInstanceOf(KilnError);
    expect(err.code).toBe('E_CHANGED_ON_DISK');
    const details = err.details as { diskHash: string; baselineHash: string };
    expect(details.diskHash).toBe((await workspace.read(FILE)).hash);
    expect(details.baselineHash).toBe((await svc.getProposal(FILE, proposalId!)).baselineHash);
    expect(await disk()).toBe(external);
    expect((await svc.openSession(FILE)).proposals[0].status).toBe('pending');

    // Reviewed against today's file: the diff shows what Accept would now replace.
    const review = await svc.reviewAgainstDisk(FILE, proposalId!);
    expect(review).toMatchObject({ baselineContent: external, content: RENAMED, linesRemoved: 3 });
    // Another change after that review is refused again: never written over unseen content.
    const later = `${external}# and again\n`;
    await fs.writeFile(path.join(root, FILE), later);
    expect(((await svc.acceptProposal(FILE, proposalId!).catch((e: unknown) => e)) as KilnError).code).toBe(
      'E_CHANGED_ON_DISK',
    );
    expect(await disk()).toBe(later);
    await svc.reviewAgainstDisk(FILE, proposalId!);
    await svc.acceptProposal(FILE, proposalId!);
    expect(await disk()).toBe(RENAMED);
  });

  it('a proposal is decided once: no accept after reject, no reject or second accept after accept', async () => {
    const svc = newService();
    server.enqueue(reply.propose(RENAMED), reply.propose(`${RENAMED}# v2\n`));
    const first = await svc.send(FILE, 'one');
    await svc.rejectProposal(FILE, first.proposalId!);
    const refused = (await svc.acceptProposal(FILE, first.proposalId!).catch((e: unknown) => e)) as KilnError;
    expect(refused.code).toBe('E_BAD_REQUEST');
    expect(await disk()).toBe(ORIGINAL);
    const second = await svc.send(FILE, 'two');
    await svc.acceptProposal(FILE, second.proposalId!);
    for (const again of [
      () => svc.acceptProposal(FILE, second.proposalId!),
      () => svc.rejectProposal(FILE, second.proposalId!),
      () => svc.rejectProposal(FILE, first.proposalId!),
    ]) {
      expect(((await again().catch((e: unknown) => e)) as KilnError).code).toBe('E_BAD_REQUEST');
    }
    expect((await svc.openSession(FILE)).proposals.map((p) => p.status)).toEqual(['rejected', 'accepted']);
  });

  it('reject keeps the disk and the baseline; the agent continues from its own last proposal', async () => {
    const svc = newService();
    const opened = await svc.openSession(FILE);
    server.enqueue(reply.propose(RENAMED, 'Here you go.'), reply.propose(RENAMED.replace('hi', 'hello')));
    const first = await svc.send(FILE, 'rename');
    const snap = await svc.rejectProposal(FILE, first.proposalId!);
    expect(snap.baselineHash).toBe(opened.baselineHash);
    expect(snap.proposals[0].status).toBe('rejected');
    expect(await disk()).toBe(ORIGINAL);

    const second = await svc.send(FILE, 'also say hello instead of hi');
    const req = lastRequest();
    expect(lastUserText(req)).toContain(`REJECTED proposal ${first.proposalId}`);
    expect(lastUserText(req)).toContain('Continue from your last proposal');
    // The earlier proposal is in the history as the assistant's own tool call, with its tool result.
    const assistant = req.messages.find((m) => m.role === 'assistant');
    expect(assistant?.tool_calls?.[0].function.name).toBe('propose_file');
    expect(JSON.parse(assistant!.tool_calls![0].function.arguments)).toEqual({ content: RENAMED });
    expect(req.messages.some((m) => m.role === 'tool')).toBe(true);

    // The rejected proposal stays viewable; the new one is pending.
    expect((await svc.getProposal(FILE, first.proposalId!)).content).toBe(RENAMED);
    const latest = await svc.openSession(FILE);
    expect(latest.latestProposalId).toBe(second.proposalId);
    expect(latest.proposals.map((p) => p.status)).toEqual(['rejected', 'pending']);
    expect(await disk()).toBe(ORIGINAL);
  });

  it('a newer proposal supersedes a pending one, which can still be accepted', async () => {
    const svc = newService();
    server.enqueue(reply.propose(RENAMED), reply.propose(`${RENAMED}# v2\n`));
    const first = await svc.send(FILE, 'one');
    await svc.send(FILE, 'two');
    expect((await svc.openSession(FILE)).proposals.map((p) => p.status)).toEqual(['superseded', 'pending']);
    await svc.acceptProposal(FILE, first.proposalId!);
    expect(await disk()).toBe(RENAMED);
    expect((await svc.openSession(FILE)).proposals.map((p) => p.status)).toEqual(['accepted', 'superseded']);
  });
});

describe('edit session: external edits', () => {
  it('re-injects the disk content with a marker and makes it the baseline', async () => {
    const svc = newService();
    const opened = await svc.openSession(FILE);
    server.enqueue(reply.text('ok'));
    await svc.send(FILE, 'hi');
    const external = 'print("rewritten by git")\n';
    await fs.writeFile(path.join(root, FILE), external);

    server.enqueue(reply.propose(`${external}# more\n`));
    const { proposalId } = await svc.send(FILE, 'add a comment');
    const user = lastUserText(lastRequest());
    expect(user).toContain('FILE CHANGED ON DISK');
    expect(user).toContain(external);
    expect(user.endsWith('add a comment')).toBe(true);

    const snap = await svc.openSession(FILE);
    expect(snap.baselineHash).not.toBe(opened.baselineHash);
    expect(snap.baselineHash).toBe((await workspace.read(FILE)).hash);
    expect(snap.transcript.find((e) => e.type === 'marker')).toMatchObject({ marker: 'changed-on-disk' });
    expect((await svc.getProposal(FILE, proposalId!)).baselineContent).toBe(external);

    // Accept compares against the new baseline, so it goes through.
    await svc.acceptProposal(FILE, proposalId!);
    expect(await disk()).toBe(`${external}# more\n`);

    // Told once: the next turn has no marker.
    server.enqueue(reply.text('ok'));
    await svc.send(FILE, 'thanks');
    expect(lastUserText(lastRequest())).not.toContain('FILE CHANGED ON DISK');
  });

  it('adopts a change reported by the feed right away', async () => {
    const svc = newService();
    server.enqueue(reply.text('hello'));
    await svc.send(FILE, 'hi');
    await fs.writeFile(path.join(root, FILE), 'x = 1\n');
    await svc.applyChange({ type: 'updated', path: FILE, isDir: false, origin: 'external' });
    const session = events.filter((e) => e.channel === 'editAssistant.session').at(-1)
      ?.payload as EventPayload<'editAssistant.session'>;
    expect(session.snapshot?.baselineHash).toBe((await workspace.read(FILE)).hash);
    expect(session.snapshot?.transcript.at(-1)).toMatchObject({ type: 'marker', marker: 'changed-on-disk' });
  });
});

describe('edit session: large files', () => {
  it('needs confirmLarge over 256 KB, then remembers it', async () => {
    const big = 'x = 1  # padding padding padding padding padding\n'.repeat(6000);
    expect(big.length).toBeGreaterThan(256 * 1024);
    await fs.writeFile(path.join(root, 'big.py'), big);
    const svc = newService();
    const err = (await svc.openSession('big.py').catch((e: unknown) => e)) as KilnError;
    expect(err.code).toBe('E_TOO_LARGE');
    expect(err.details).toMatchObject({ size: big.length, limit: 256 * 1024, confirmable: true });
    const sendErr = (await svc.send('big.py', 'hi').catch((e: unknown) => e)) as KilnError;
    expect(sendErr.code).toBe('E_TOO_LARGE');
    expect(server.chatRequests).toHaveLength(0);

    const snap = await svc.openSession('big.py', { confirmLarge: true });
    expect(snap.warnings.map((w) => w.code)).toEqual(['large-file']);
    server.enqueue(reply.text('ok'));
    expect((await svc.send('big.py', 'hi')).status).toBe('completed');
  });
});

describe('edit session: persistence and Clear', () => {
  it('survives a new service instance, and Clear deletes it so the next use starts cold', async () => {
    const first = newService();
    server.enqueue(reply.propose(RENAMED, 'done'));
    const { proposalId } = await first.send(FILE, 'rename');
    await first.dispose();

    const second = newService();
    const resumed = await second.openSession(FILE);
    expect(resumed.transcript.map((e) => e.type)).toEqual(['user', 'assistant', 'proposal']);
    expect((await second.getProposal(FILE, proposalId!)).content).toBe(RENAMED);
    // The model sees the earlier exchange.
    server.enqueue(reply.text('ok'));
    await second.send(FILE, 'go on');
    expect(lastRequest().messages.filter((m) => m.role === 'user')).toHaveLength(2);

    expect(await second.clear(FILE)).toBe(true);
    // Gone for good: nothing of it is left in the data folder.
    const left = await fs.readdir(path.join(dataDir, 'edit-sessions'));
    for (const file of left)
      expect(await fs.readFile(path.join(dataDir, 'edit-sessions', file), 'utf8')).not.toContain('welcome');
    expect(events.at(-1)).toEqual({ channel: 'editAssistant.session', payload: { path: FILE, snapshot: null } });

    const third = newService();
    const cold = await third.openSession(FILE);
    expect(cold.transcript).toEqual([]);
    expect(cold.proposals).toEqual([]);
    const err = (await third.getProposal(FILE, proposalId!).catch((e: unknown) => e)) as KilnError;
    expect(err.code).toBe('E_NOT_FOUND');
    server.enqueue(reply.text('fresh'));
    await third.send(FILE, 'hello');
    expect(lastRequest().messages.filter((m) => m.role === 'user')).toHaveLength(1);
  });

  it('starts cold when the stored session file is not valid JSON', async () => {
    const first = newService();
    server.enqueue(reply.text('hi'));
    await first.send(FILE, 'hello');
    await first.dispose();
    const dir = path.join(dataDir, 'edit-sessions');
    for (const file of await fs.readdir(dir)) await fs.writeFile(path.join(dir, file), '{"version": 1, "path":');

    const cold = await newService().openSession(FILE);
    expect(cold.transcript).toEqual([]);
  });
});

describe('edit session: failures change nothing on disk', () => {
  const cases: Array<{
    name: string;
    setup: () => Promise<void> | void;
    override?: string;
    code: string;
    message: RegExp;
  }> = [
    {
      name: 'unreachable server',
      setup: () => {},
      override: 'down',
      code: 'E_MODEL',
      message: /Could not reach the model server/,
    },
    {
      name: 'unknown model (404)',
      setup: () => {},
      override: 'ghost',
      code: 'E_MODEL',
      message: /Unknown model 'ghost' \(ghost-model\).*404/,
    },
    {
      name: 'bad key (401)',
      setup: () => server.enqueue(reply.status(401, 'Incorrect API key provided.')),
      code: 'E_MODEL',
      message: /refused the API key.*401/,
    },
    {
      name: 'malformed tool arguments',
      setup: () => server.enqueue(reply.malformedToolArgs()),
      code: 'E_MODEL',
      message: /malformed arguments/,
    },
    {
      name: 'missing tool argument',
      setup: () => server.enqueue(reply.missingToolArg()),
      code: 'E_MODEL',
      message: /without a string "content" argument/,
    },
    {
      name: 'stream cut mid-way',
      setup: () => server.enqueue(reply.cut()),
      code: 'E_MODEL',
      message: /cut before the reply finished/,
    },
    {
      name: 'stream cut after some text arrived',
      setup: () =>
        server.enqueue({
          text: 'Renaming greet everywhere in the file now',
          chunkSize: 4,
          delayMs: 15,
          cutAfterChunks: 5,
        }),
      code: 'E_MODEL',
      message: /cut before the reply finished/,
    },
    {
      name: 'unset API key variable',
      setup: () => {},
      override: 'unset-key',
      code: 'E_NO_MODEL',
      message: /KILN_TEST_UNSET_KEY/,
    },
  ];

  for (const c of cases) {
    it(`${c.name}: a clear error in the transcript, the file untouched`, async () => {
      const svc = newService();
      await svc.openSession(FILE);
      await c.setup();
      const outcome = await svc.send(FILE, 'rename greet', c.override ? { modelOverride: c.override } : {});
      expect(outcome.status).toBe('error');
      expect(outcome.error?.code).toBe(c.code);
      expect(outcome.error?.message, JSON.stringify(outcome.error)).toMatch(c.message);
      const snap = await svc.openSession(FILE);
      const last = snap.transcript.at(-1);
      expect(last).toMatchObject({ type: 'error', code: c.code });
      expect(last?.type === 'error' && last.message).toMatch(c.message);
      expect(snap.proposals).toEqual([]);
      expect(snap.runState).toBe('error');
      expect(
        events.some(
          (e) =>
            e.channel === 'editAssistant.runState' &&
            (e.payload as EventPayload<'editAssistant.runState'>).state === 'error',
        ),
      ).toBe(true);
      expect(await disk()).toBe(ORIGINAL);
    });
  }

  it('keeps harness notes for the next turn when a run fails', async () => {
    const svc = newService();
    server.enqueue(reply.propose(RENAMED), reply.status(500, 'overloaded'), reply.text('ok'));
    const { proposalId } = await svc.send(FILE, 'rename');
    await svc.rejectProposal(FILE, proposalId!);
    expect((await svc.send(FILE, 'again')).status).toBe('error');
    expect((await svc.send(FILE, 'again')).status).toBe('completed');
    expect(lastUserText(lastRequest())).toContain(`REJECTED proposal ${proposalId}`);
    // The failed turn is not part of the model's history: roles still alternate.
    const roles = lastRequest().messages.map((m) => m.role);
    expect(roles).toEqual(['system', 'user', 'assistant', 'tool', 'user']);
  });

  it('tells the model about its malformed call on the next turn, and recovers', async () => {
    const svc = newService();
    server.enqueue(reply.malformedToolArgs(), reply.propose(RENAMED));
    await svc.send(FILE, 'rename');
    const outcome = await svc.send(FILE, 'try again');
    expect(lastUserText(lastRequest())).toContain('could not be used');
    expect(outcome.status).toBe('completed');
    expect((await svc.openSession(FILE)).runState).toBe('idle');
  });

  it('checks the key against a server that demands one (env var named by api_key_env)', async () => {
    const keyed = await ModelServer.start({ apiKey: 'right-key' });
    try {
      process.env.KILN_TEST_KEY = 'wrong-key';
      await writeConfig(
        `  keyed:\n    provider: openai-compatible\n    base_url: ${keyed.url}\n    model: m\n    api_key_env: KILN_TEST_KEY\nfile_editing:\n  model: keyed\n`,
      );
      const svc = newService();
      const bad = await svc.send(FILE, 'hi');
      expect(bad.error?.message).toMatch(/refused the API key.*401/);
      expect(keyed.requests[0].headers.authorization).toBe('Bearer wrong-key');
      process.env.KILN_TEST_KEY = 'right-key';
      keyed.enqueue(reply.text('welcome'));
      expect((await svc.send(FILE, 'hi')).status).toBe('completed');
    } finally {
      delete process.env.KILN_TEST_KEY;
      await keyed.close();
    }
  });
});

describe('edit session: Stop and concurrency', () => {
  it('Stop aborts a streaming run; a second run meanwhile is refused with E_BUSY', async () => {
    const svc = newService();
    server.enqueue(reply.slow('word '.repeat(400), 30));
    const running = svc.send(FILE, 'write a lot');
    await until(() => events.some((e) => e.channel === 'editAssistant.delta'), 'the first delta');

    const busy = (await svc.send(FILE, 'another').catch((e: unknown) => e)) as KilnError;
    expect(busy.code).toBe('E_BUSY');

    expect(svc.stop(FILE)).toBe(true);
    const outcome = await running;
    expect(outcome.status).toBe('stopped');
    const snap = await svc.openSession(FILE);
    expect(snap.runState).toBe('idle');
    expect(snap.transcript.at(-1)).toMatchObject({ type: 'marker', marker: 'stopped' });
    const assistant = snap.transcript.find((e) => e.type === 'assistant');
    expect(assistant).toMatchObject({ streaming: false });
    expect(await disk()).toBe(ORIGINAL);

    // The session is usable again.
    server.enqueue(reply.text('ok'));
    expect((await svc.send(FILE, 'short one')).status).toBe('completed');
  });

  it('Clear during a run stops it and leaves no session behind', async () => {
    const svc = newService();
    server.enqueue(reply.slow('word '.repeat(400), 30));
    const running = svc.send(FILE, 'write a lot');
    await until(() => events.some((e) => e.channel === 'editAssistant.delta'), 'the first delta');
    await svc.clear(FILE);
    expect((await running).status).toBe('stopped');
    const dir = path.join(dataDir, 'edit-sessions');
    for (const file of await fs.readdir(dir))
      expect(await fs.readFile(path.join(dir, file), 'utf8')).not.toContain('write a lot');
    expect((await svc.openSession(FILE)).transcript).toEqual([]);
  });
});

describe('handlers and contract', () => {
  it('serves the agent and config channels through dispatch, with results and events matching the contract', async () => {
    const svc = newService();
    const handlers = { ...configHandlers(config), ...editAssistantHandlers(svc) } as unknown as Handlers;
    const call = async (channel: keyof typeof requests, args: unknown) => {
      const envelope = await dispatch(handlers, channel, args);
      if (!envelope.ok) return envelope;
      // Results must parse with the contract's own result schema.
      const spec = requests[channel] as { result: { parse(v: unknown): unknown } };
      spec.result.parse(envelope.value);
      return envelope;
    };
    const state = await call('config.get', {});
    expect(state.ok && (state.value as { fileEditing: { model: string } }).fileEditing.model).toBe('scripted');
    expect((await call('editAssistant.openSession', { path: FILE })).ok).toBe(true);
    server.enqueue(reply.propose(RENAMED, 'ok'));
    const sent = await call('editAssistant.send', { path: FILE, text: 'rename' });
    const proposalId = sent.ok ? (sent.value as { proposalId: string }).proposalId : '';
    expect((await call('editAssistant.getProposal', { path: FILE, proposalId })).ok).toBe(true);
    expect((await call('editAssistant.models', {})).ok).toBe(true);
    expect((await call('editAssistant.reject', { path: FILE, proposalId })).ok).toBe(true);
    const decided = await call('editAssistant.accept', { path: FILE, proposalId });
    expect(!decided.ok && decided.error.code).toBe('E_BAD_REQUEST');
    server.enqueue(reply.propose(`${RENAMED}# v2\n`, 'ok'));
    const again = await call('editAssistant.send', { path: FILE, text: 'again' });
    const secondId = again.ok ? (again.value as { proposalId: string }).proposalId : '';
    expect((await call('editAssistant.reviewAgainstDisk', { path: FILE, proposalId: secondId })).ok).toBe(true);
    expect((await call('editAssistant.accept', { path: FILE, proposalId: secondId })).ok).toBe(true);
    expect((await call('editAssistant.setModel', { path: FILE, model: 'other' })).ok).toBe(true);
    expect((await call('editAssistant.stop', { path: FILE })).ok).toBe(true);
    const bad = await call('editAssistant.send', { path: FILE, text: '' });
    expect(!bad.ok && bad.error.code).toBe('E_BAD_REQUEST');
    const cleared = await call('editAssistant.clear', { path: FILE });
    expect(cleared.ok && cleared.value).toEqual({ cleared: true });

    expect(events.length).toBeGreaterThan(5);
    for (const e of events) {
      const schema = contractEvents[e.channel as keyof typeof contractEvents] as { parse(v: unknown): unknown };
      expect(() => schema.parse(e.payload), e.channel).not.toThrow();
    }
    expect(new Set(events.map((e) => e.channel))).toEqual(
      new Set([
        'editAssistant.transcript',
        'editAssistant.runState',
        'editAssistant.delta',
        'editAssistant.proposal',
        'editAssistant.session',
      ]),
    );
  });
});

describe('edit session: lineage, lazy creation and privacy', () => {
  const sessionFiles = async () => fs.readdir(path.join(dataDir, 'edit-sessions')).catch(() => []);

  it('opening or viewing a file persists nothing; the first message does, owner-only', async () => {
    const svc = newService();
    await svc.openSession(FILE);
    await svc.openSession(FILE);
    expect(await sessionFiles()).toEqual([]);
    server.enqueue(reply.text('hi'));
    await svc.send(FILE, 'hello');
    await svc.dispose();
    const dir = path.join(dataDir, 'edit-sessions');
    expect((await fs.stat(dir)).mode & 0o777).toBe(0o700);
    const files = await sessionFiles();
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) expect((await fs.stat(path.join(dir, file))).mode & 0o777).toBe(0o600);
  });

  it('a Kiln move carries the session (its pending proposal too), by file or by folder; the old path starts fresh', async () => {
    const svc = newService();
    server.enqueue(reply.propose(RENAMED, 'here'));
    const { proposalId } = await svc.send(FILE, 'rename');
    await fs.mkdir(path.join(root, 'lib'));
    await fs.rename(path.join(root, FILE), path.join(root, 'lib/app.py'));
    await svc.applyChange({ type: 'moved', from: FILE, to: 'lib/app.py', isDir: false, origin: 'operator' });
    await fs.rename(path.join(root, 'lib'), path.join(root, 'pkg'));
    await svc.applyChange({ type: 'moved', from: 'lib', to: 'pkg', isDir: true, origin: 'agent' });
    const moved = await svc.openSession('pkg/app.py');
    expect(moved.proposals.map((p) => p.status)).toEqual(['pending']);
    expect(moved.transcript.map((e) => e.type)).toEqual(['user', 'assistant', 'proposal']);
    // A new file at the old path is a different file.
    await fs.writeFile(path.join(root, FILE), 'brand new\n');
    expect((await svc.openSession(FILE)).transcript).toEqual([]);
    // The session followed for good: a fresh service finds it at the new path too.
    await svc.dispose();
    const after = newService();
    expect((await after.openSession('pkg/app.py')).proposals).toHaveLength(1);
    await after.acceptProposal('pkg/app.py', proposalId!);
    expect(await fs.readFile(path.join(root, 'pkg/app.py'), 'utf8')).toBe(RENAMED);
    expect(await disk()).toBe('brand new\n');
  });

  it('a rename by another program orphans the session: a new file at the old path never gets its proposal', async () => {
    const svc = newService();
    server.enqueue(reply.propose(RENAMED, 'here'));
    const { proposalId } = await svc.send(FILE, 'rename');
    // Another program renames the file (the feed sees deleted + created), then a new file takes the old name.
    await fs.rename(path.join(root, FILE), path.join(root, 'src/elsewhere.py'));
    await svc.applyChange({ type: 'deleted', path: FILE, isDir: false, origin: 'external' });
    await svc.applyChange({ type: 'created', path: 'src/elsewhere.py', isDir: false, origin: 'external' });
    expect(events.at(-1)).toEqual({ channel: 'editAssistant.session', payload: { path: FILE, snapshot: null } });
    await fs.writeFile(path.join(root, FILE), 'someone else\n');
    await svc.applyChange({ type: 'created', path: FILE, isDir: false, origin: 'external' });
    const fresh = await svc.openSession(FILE);
    expect(fresh.transcript).toEqual([]);
    expect(((await svc.acceptProposal(FILE, proposalId!).catch((e: unknown) => e)) as KilnError).code).toBe(
      'E_NOT_FOUND',
    );
    expect(await disk()).toBe('someone else\n');
    // So does a fresh start of Kiln.
    await svc.dispose();
    expect((await newService().openSession(FILE)).transcript).toEqual([]);
    // Deleting a folder orphans what is inside it the same way.
    const other = newService();
    server.enqueue(reply.text('hi'));
    await other.send('src/elsewhere.py', 'hello');
    await other.applyChange({ type: 'deleted', path: 'src', isDir: true, origin: 'operator' });
    expect((await other.openSession('src/elsewhere.py')).transcript).toEqual([]);
  });

  it(`prunes orphans after the retention period (${ORPHAN_RETENTION_MS / 86_400_000} days), record and all`, async () => {
    let now = 1_000_000;
    const store = new SessionStore(dataDir, root, () => now);
    const svc = newService();
    server.enqueue(reply.text('hi'));
    await svc.send(FILE, 'hello');
    await svc.dispose();
    await store.orphan(FILE);
    const dir = path.join(dataDir, 'edit-sessions');
    const before = (await fs.readdir(dir)).length;
    now += ORPHAN_RETENTION_MS - 1;
    expect(await store.prune()).toEqual([]);
    now += 2;
    expect(await store.prune()).toHaveLength(1);
    await store.flush();
    expect((await fs.readdir(dir)).length).toBe(before - 1);
  });

  it('a file that grows past 256 KB mid-session asks once to continue, then goes on with a warning', async () => {
    const svc = newService();
    server.enqueue(reply.text('small'));
    await svc.send(FILE, 'hello');
    await fs.writeFile(path.join(root, FILE), `${ORIGINAL}${'# padding padding padding padding\n'.repeat(9000)}`);
    const err = (await svc.send(FILE, 'and now?').catch((e: unknown) => e)) as KilnError;
    expect(err.code).toBe('E_TOO_LARGE');
    expect(err.details).toMatchObject({ confirmable: true });
    server.enqueue(reply.text('fine'));
    const outcome = await svc.send(FILE, 'and now?', { confirmLarge: true });
    expect(outcome.status).toBe('completed');
    const snapshot = await svc.openSession(FILE);
    expect(snapshot.warnings.map((w) => w.code)).toEqual(['large-file']);
    expect(snapshot.transcript.filter((e) => e.type === 'user').map((e) => e.type === 'user' && e.text)).toEqual([
      'hello',
      'and now?',
    ]);
  });
});

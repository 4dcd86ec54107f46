import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ModelServer, reply } from '../../test-support/model-server';
import { KilnError } from '../../shared/errors';
import { ConfigService } from '../config';
import { Workspace } from '../workspace';
import { EditAssistantService } from './index';

/*
 * Accept against a real outside writer: a separate process that writes the file the moment Kiln's temp file for
 * the accept appears, i.e. after Accept's hash check and before its rename. Whatever the timing, the writer's
 * content must be what the disk ends with: refused if it landed before the rename, or written after it.
 */

const FILE = 'src/app.py';
const ORIGINAL = 'print("original")\n';
// Big enough that writing and syncing the temp file leaves the writer time to land first.
const PROPOSAL = `${'# proposed\n'.repeat(20_000)}print("proposed")\n`;
const THEIRS = 'print("written by another program")\n';

let root: string;
let dataDir: string;
let server: ModelServer;
let workspace: Workspace;
let config: ConfigService;
let svc: EditAssistantService;
const writers: ChildProcess[] = [];

beforeEach(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'kiln-accept-race-')));
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'kiln-data-'));
  await fs.mkdir(path.join(root, 'src'));
  await fs.writeFile(path.join(root, FILE), ORIGINAL);
  server = await ModelServer.start({ models: ['scripted-model'] });
  await fs.mkdir(path.join(root, '.kiln'));
  await fs.writeFile(
    path.join(root, '.kiln', 'config.yaml'),
    `models:\n  scripted:\n    provider: openai-compatible\n    base_url: ${server.url}\n    model: scripted-model\nfile_editing:\n  model: scripted\n`,
  );
  workspace = await Workspace.open({ root });
  config = new ConfigService({ workspaceRoot: workspace.root, watch: false, projectTrusted: () => true });
  await config.start();
  svc = new EditAssistantService({ files: workspace, workspaceRoot: root, config, dataDir });
});

afterEach(async () => {
  for (const writer of writers.splice(0)) if (writer.exitCode === null) writer.kill();
  await svc.dispose();
  await config.dispose();
  await server.close();
  await fs.rm(root, { recursive: true, force: true });
  await fs.rm(dataDir, { recursive: true, force: true });
});

/** Starts the outside writer: `act` runs on the file as soon as a Kiln temp file appears beside it. */
async function outsideWriter(act: 'write' | 'delete'): Promise<{ done: Promise<void> }> {
  const target = path.join(root, FILE);
  const script = `
    const fs = require('node:fs');
    const [dir, target, act, text] = process.argv.slice(1);
    fs.watch(dir, (event, name) => {
      if (!name || !/^\\.kiln-.*\\.tmp$/.test(name)) return;
      if (act === 'write') fs.writeFileSync(target, text);
      else fs.rmSync(target, { force: true });
      console.log('done');
      process.exit(0);
    });
    console.log('ready');`;
  const writer = spawn(process.execPath, ['-e', script, path.dirname(target), target, act, THEIRS], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  writers.push(writer);
  let said = '';
  const saying = (word: string) =>
    new Promise<void>((resolve) => {
      const listen = () => said.includes(`${word}\n`) && (writer.stdout!.off('data', hear), resolve());
      const hear = (chunk: Buffer) => ((said += String(chunk)), listen());
      writer.stdout!.on('data', hear);
      listen();
    });
  await saying('ready');
  // Wrapped: an async function returning a bare promise would wait for it.
  return { done: saying('done') };
}

async function propose(): Promise<string> {
  await svc.openSession(FILE);
  server.enqueue(reply.propose(PROPOSAL), reply.text('ok'));
  const { proposalId } = await svc.send(FILE, 'rewrite');
  return proposalId!;
}

describe('Accept races an outside writer', () => {
  it('never writes over what another program wrote after the hash check', async () => {
    const proposalId = await propose();
    const wrote = await outsideWriter('write');
    const outcome = await svc.acceptProposal(FILE, proposalId).then(
      () => 'accepted' as const,
      (err: unknown) => err,
    );
    await wrote.done;
    // Refused (the write landed before the rename) or accepted (it landed after): the writer's text is on disk.
    expect(await fs.readFile(path.join(root, FILE), 'utf8')).toBe(THEIRS);
    if (outcome !== 'accepted') {
      expect(outcome).toBeInstanceOf(KilnError);
      expect((outcome as KilnError).code).toBe('E_CHANGED_ON_DISK');
      expect((await svc.getProposal(FILE, proposalId)).status).toBe('pending');
    }
  });

  it('a file deleted during the accept is not written back', async () => {
    const proposalId = await propose();
    const deleted = await outsideWriter('delete');
    const outcome = await svc.acceptProposal(FILE, proposalId).then(
      () => 'accepted' as const,
      (err: unknown) => err,
    );
    await deleted.done;
    if (outcome === 'accepted') return; // the delete landed after the rename: it removed Kiln's file, as asked
    expect((outcome as KilnError).code).toBe('E_CHANGED_ON_DISK');
    await expect(fs.stat(path.join(root, FILE))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('Accept after the file was deleted', () => {
  it('says so, writes nothing, and the proposal stays reviewable', async () => {
    const proposalId = await propose();
    await fs.rm(path.join(root, FILE));
    const err = (await svc.acceptProposal(FILE, proposalId).catch((e: unknown) => e)) as KilnError;
    expect(err).toBeInstanceOf(KilnError);
    expect(err.code).toBe('E_CHANGED_ON_DISK');
    expect(err.message).toContain(FILE);
    expect(err.details).toMatchObject({ diskHash: null });
    await expect(fs.stat(path.join(root, FILE))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await fs.readdir(path.join(root, 'src'))).toEqual([]);
    const proposal = await svc.getProposal(FILE, proposalId);
    expect(proposal.status).toBe('pending');
    expect(proposal.content).toBe(PROPOSAL);
  });
});

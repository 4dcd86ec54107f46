/**
 * The edit assistant's store against the real main side: real services on a temp workspace, the
 * contract's own dispatch and event hub as the bridge, and the scripted model server over HTTP.
 */
import { readFile, writeFile, unlink } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KilnBridge } from '../../shared/contract';
import { trustFolder } from '../../main/trust';
import { EditAssistantStore } from '../../renderer/src/edit-assistant/edit-assistant-store';
import { ModelServer, reply } from '../../test-support/model-server';
import { startServices, type RunningServices } from '../../test-support/services';
import { untilState } from '../../test-support/until';

const APP = 'def greet(name):\n    return f"hello {name}"\n';
const RENAMED = 'def greet(person):\n    return f"hello {person}"\n';

describe('EditAssistantStore', () => {
  let running: RunningServices;
  let root: string;
  let model: ModelServer;
  let store: EditAssistantStore;
  let bridge: KilnBridge;

  beforeEach(async () => {
    model = await ModelServer.start();
    running = await startServices(
      {
        'app.py': APP,
        '.kiln/config.yaml': `models:\n  scripted:\n    provider: openai-compatible\n    base_url: ${model.url}\n    model: m\nfile_editing:\n  model: scripted\n`,
      },
      // The project config names the scripted model server: trusted, as the operator would.
      { prepare: (root, dataDir) => trustFolder(dataDir, root) },
    );
    root = running.root;
    bridge = running.bridge;
    store = new EditAssistantStore(bridge);
    await untilState(store, (s) => s.config?.fileEditing.enabled === true && s.models.length === 1);
  });

  afterEach(async () => {
    store.dispose();
    await running.close();
    await model.close();
  });

  it('a proposal becomes a chip and opens its diff against the baseline', async () => {
    await store.open('app.py');
    model.enqueue(reply.propose(RENAMED, 'Renaming.'));
    await store.send('app.py', 'rename name to person');
    const state = await untilState(store, (s) => s.reviews['app.py']?.modified != null);
    const kinds = state.sessions['app.py'].transcript.map((e) => e.type);
    expect(kinds).toEqual(['user', 'assistant', 'proposal']);
    expect(state.reviews['app.py']).toMatchObject({ against: 'baseline', original: APP, modified: RENAMED });
  });

  it("a new proposal's diff shows from its event: no getProposal round trip before the paint", async () => {
    const asked: string[] = [];
    const counting: KilnBridge = {
      transport: bridge.transport,
      on: (channel, listener) => bridge.on(channel, listener),
      request: (channel, args) => {
        asked.push(channel);
        return bridge.request(channel, args);
      },
    };
    const direct = new EditAssistantStore(counting);
    try {
      await untilState(direct, (s) => s.models.length === 1);
      await direct.open('app.py');
      model.enqueue(reply.propose(RENAMED));
      await direct.send('app.py', 'rename name to person');
      const state = await untilState(direct, (s) => s.reviews['app.py']?.modified != null);
      expect(state.reviews['app.py']).toMatchObject({ against: 'baseline', original: APP, modified: RENAMED });
      expect(asked).not.toContain('editAssistant.getProposal');
      // Opened again from its chip, the proposal is fetched as before (the event is long gone).
      await direct.review('app.py', state.reviews['app.py'].proposalId);
      expect(asked).toContain('editAssistant.getProposal');
      expect(direct.getState().reviews['app.py']).toMatchObject({ original: APP, modified: RENAMED });
    } finally {
      direct.dispose();
    }
  });

  it('accept refuses when the disk changed under the proposal; reviewed against the current file, it is accepted knowingly', async () => {
    await store.open('app.py');
    model.enqueue(reply.propose(RENAMED));
    await store.send('app.py', 'rename');
    const { reviews } = await untilState(store, (s) => s.reviews['app.py']?.modified != null);
    const proposalId = reviews['app.py'].proposalId;
    const outside = `${APP}# edited elsewhere\n`;
    await writeFile(path.join(root, 'app.py'), outside);
    // The session adopts the disk as its baseline for the next turn; the proposal stays bound to its own.
    await untilState(store, (s) =>
      s.sessions['app.py'].transcript.some((e) => e.type === 'marker' && e.marker === 'changed-on-disk'),
    );
    expect(await store.accept('app.py', proposalId)).toBe(false);
    expect(store.getState().reviews['app.py']).toMatchObject({
      against: 'baseline',
      original: APP,
      stale: expect.stringContaining('changed on disk'),
    });
    expect(await readFile(path.join(root, 'app.py'), 'utf8')).toBe(outside);
    await store.reviewAgainstDisk('app.py', proposalId);
    expect(store.getState().reviews['app.py']).toMatchObject({
      against: 'disk',
      stale: null,
      original: outside,
      modified: RENAMED,
    });
    expect(await store.accept('app.py', proposalId)).toBe(true);
    expect(store.getState().reviews['app.py']).toBeUndefined();
    expect(await readFile(path.join(root, 'app.py'), 'utf8')).toBe(RENAMED);
  });

  it('follows a move of the file, session and review alike, and drops them when the file goes away', async () => {
    await store.open('app.py');
    model.enqueue(reply.propose(RENAMED));
    await store.send('app.py', 'rename');
    await untilState(store, (s) => s.reviews['app.py']?.modified != null);
    await bridge.request('workspace.createDir', { path: 'pkg' });
    await bridge.request('workspace.move', { from: 'app.py', to: 'pkg/app.py' });
    await bridge.request('workspace.move', { from: 'pkg', to: 'lib' });
    const state = store.getState();
    expect(Object.keys(state.sessions)).toEqual(['lib/app.py']);
    expect(state.reviews['lib/app.py']).toMatchObject({ path: 'lib/app.py', modified: RENAMED });
    expect(await store.accept('lib/app.py', state.reviews['lib/app.py'].proposalId)).toBe(true);
    expect(await readFile(path.join(root, 'lib/app.py'), 'utf8')).toBe(RENAMED);
    await unlink(path.join(root, 'lib/app.py'));
    await untilState(store, (s) => !s.sessions['lib/app.py']);
  });

  it('Clear empties the transcript and drops the review', async () => {
    await store.open('app.py');
    model.enqueue(reply.propose(RENAMED));
    await store.send('app.py', 'rename');
    await untilState(store, (s) => s.reviews['app.py']?.modified != null);
    await store.clear('app.py');
    const state = store.getState();
    expect(state.sessions['app.py'].transcript).toEqual([]);
    expect(state.sessions['app.py'].status).toBe('ready');
    expect(state.reviews['app.py']).toBeUndefined();
  });

  it('a file over 256 KB is blocked until confirmed', async () => {
    await writeFile(path.join(root, 'big.txt'), 'x'.repeat(300 * 1024));
    await store.open('big.txt');
    expect(store.session('big.txt')).toMatchObject({
      status: 'blocked',
      problem: { code: 'E_TOO_LARGE', confirmable: true },
    });
    await store.open('big.txt', true);
    expect(store.session('big.txt')?.status).toBe('ready');
    expect(store.session('big.txt')?.snapshot?.warnings.map((w) => w.code)).toEqual(['large-file']);
  });

  it('refusals become error lines in the transcript', async () => {
    await store.open('app.py');
    await writeFile(path.join(root, '.kiln/config.yaml'), 'models: {}\n');
    await untilState(store, (s) => s.config?.fileEditing.enabled === false);
    await store.send('app.py', 'hello');
    const last = store.session('app.py')?.transcript.at(-1);
    expect(last).toMatchObject({ type: 'error', code: 'E_NO_MODEL' });
  });
});

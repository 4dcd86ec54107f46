import { writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyEvent, CellRunResult, EventPayload, KernelInfo, NotebookOutput } from '../../shared/contract';
import { trustFolder } from '../trust';
import { startServices, type RunningServices } from '../../test-support/services';
import { startRemoteJupyter, type RemoteJupyterServer } from '../../test-support/remote-jupyter';

/**
 * A notebook on a remote Jupyter server (the config's `jupyter.url`, its token from `token_env`, in a trusted
 * workspace) whose server stops answering: frozen (SIGSTOP) and thawed, then killed (SIGKILL on its process group)
 * and started again on the same port. The server is a second, real `jupyter server`.
 */

const TOKEN_VAR = 'KILN_TEST_REMOTE_JUPYTER_TOKEN';
const NB = 'nb/remote.ipynb';
const NOT_ANSWERING = /^Jupyter server at http:\/\/127\.0\.0\.1:\d+\/ is not answering; retrying$/;

let remote: RemoteJupyterServer | null = null;
let running: RunningServices;
const events: AnyEvent[] = [];

function text(outputs: NotebookOutput[]): string {
  return outputs
    .map((o) => {
      const value =
        o.output_type === 'stream' ? o.text : (o.data as Record<string, unknown> | undefined)?.['text/plain'];
      return Array.isArray(value) ? value.join('') : String(value ?? '');
    })
    .join('');
}

/** Resolves with the first event (already seen since `from`, or to come) on `channel` that matches. */
function eventAfter<E extends AnyEvent['channel']>(
  from: number,
  channel: E,
  match: (payload: EventPayload<E>) => boolean,
  timeoutMs = 60_000,
): Promise<EventPayload<E>> {
  const seen = events.slice(from).find((e) => e.channel === channel && match(e.payload as EventPayload<E>));
  if (seen) return Promise.resolve(seen.payload as EventPayload<E>);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void watching.dispose();
      reject(new Error(`No matching ${channel} event within ${timeoutMs} ms`));
    }, timeoutMs);
    const watching = running.services.hub.onEvent((e) => {
      if (e.channel === channel && match(e.payload as EventPayload<E>)) {
        clearTimeout(timer);
        void watching.dispose();
        resolve(e.payload as EventPayload<E>);
      }
    });
  });
}

const kernelIs = (status: KernelInfo['status']) => (e: { path: string; kernel: KernelInfo }) =>
  e.path === NB && e.kernel.status === status;

async function addCell(source: string): Promise<string> {
  return (await running.bridge.request('notebook.insertCell', { path: NB, source })).cell.id;
}

function run(cellId: string): Promise<CellRunResult> {
  return running.bridge.request('notebook.runCell', { path: NB, cellId });
}

/** Starts a cell that prints `started` and then sleeps; resolves once it printed (it is running at the kernel). */
async function startLongCell(): Promise<{ id: string; result: Promise<CellRunResult> }> {
  const id = await addCell("import time\nprint('started', flush=True)\ntime.sleep(15)\nprint('woke')");
  const from = events.length;
  const result = run(id);
  await eventAfter(from, 'notebook.output', (e) => e.cellId === id && e.change.kind !== 'clear');
  return { id, result };
}

beforeAll(async () => {
  running = await startServices(
    { [NB]: JSON.stringify({ cells: [], metadata: {}, nbformat: 4, nbformat_minor: 5 }) },
    {
      async prepare(root, dataDir) {
        remote = await startRemoteJupyter(root);
        process.env[TOKEN_VAR] = remote.token;
        await mkdir(path.join(root, '.kiln'), { recursive: true });
        await writeFile(
          path.join(root, '.kiln', 'config.yaml'),
          `jupyter:\n  url: ${remote.url}\n  token_env: ${TOKEN_VAR}\n`,
        );
        await trustFolder(dataDir, root);
      },
    },
  );
  running.services.hub.onEvent((e) => events.push(e));
  const from = events.length;
  const doc = await running.bridge.request('notebook.open', { path: NB });
  if (doc.kernel.status !== 'idle') await eventAfter(from, 'notebook.kernelStatus', kernelIs('idle'));
}, 120_000);

afterAll(async () => {
  remote?.resume();
  await running?.close();
  await remote?.close();
  delete process.env[TOKEN_VAR];
});

describe('a remote Jupyter server that stops answering', () => {
  it('frozen: says so within 10 s, ends the queued cell as not run, and reconnects to the same kernel', async () => {
    await run(await addCell('kept = 41'));
    const long = await startLongCell();
    const queuedId = await addCell('kept + 1');
    const queued = run(queuedId);
    await eventAfter(events.length - 1, 'notebook.cellState', (e) => e.cellId === queuedId && e.state === 'queued');

    const from = events.length;
    const stoppedAt = Date.now();
    remote!.pause();
    const said = await eventAfter(from, 'notebook.kernelStatus', kernelIs('disconnected'), 15_000);
    const elapsed = Date.now() - stoppedAt;
    console.log(`[remote-outage] frozen server: "${said.kernel.message}" after ${elapsed} ms`);
    expect(said.kernel.message).toMatch(NOT_ANSWERING);
    expect(elapsed).toBeLessThan(10_000);

    // The queued cell ends now, as not run, with the reason (the UI gets it with the cell's idle state).
    const notRun = await queued;
    expect(notRun).toMatchObject({ status: 'aborted', reason: said.kernel.message, exec_count: null });
    const idle = await eventAfter(from, 'notebook.cellState', (e) => e.cellId === queuedId && e.state === 'idle');
    expect(idle.result?.reason).toBe(said.kernel.message);
    // A cell run while the server does not answer is not kept busy either.
    expect(await run(await addCell('1'))).toMatchObject({ status: 'aborted', reason: said.kernel.message });

    remote!.resume();
    await eventAfter(
      from,
      'notebook.kernelStatus',
      (e) => e.path === NB && !e.kernel.message && e.kernel.status !== 'disconnected',
    );
    // Same kernel: the running cell's reply still arrives, and the variables are kept.
    expect(await long.result).toMatchObject({ status: 'ok' });
    expect(text((await long.result).outputs)).toBe('started\nwoke\n');
    expect(text((await run(await addCell('kept + 1'))).outputs)).toBe('42');
  }, 120_000);

  it('frozen: Restart is refused with why, and Interrupt gives the running cell back at once', async () => {
    const long = await startLongCell();
    const from = events.length;
    remote!.pause();
    try {
      const said = await eventAfter(from, 'notebook.kernelStatus', kernelIs('disconnected'), 15_000);
      // A restart goes through the server: refused now, the kernel kept for when it answers again.
      await expect(running.bridge.request('notebook.restart', { path: NB })).rejects.toMatchObject({
        code: 'E_NO_JUPYTER',
        message: said.kernel.message,
      });
      // The server cannot take an interrupt: the cell ends here, saying it may still run there.
      await running.bridge.request('notebook.interrupt', { path: NB });
      expect(await long.result).toMatchObject({
        status: 'aborted',
        reason: expect.stringMatching(/^Interrupted while the Jupyter server did not answer/),
      });
    } finally {
      remote!.resume();
    }
    // Answering again, with the kernel still asleep in the cell (or done with it): the next test wants it idle.
    await eventAfter(from, 'notebook.kernelStatus', (e) => e.path === NB && ['busy', 'idle'].includes(e.kernel.status));
    await running.bridge.request('notebook.interrupt', { path: NB });
    await eventAfter(from, 'notebook.kernelStatus', kernelIs('idle'));
  }, 120_000);

  it('killed and restarted: says so within 10 s, ends the queued cell as not run, then offers Restart', async () => {
    const long = await startLongCell();
    const queuedId = await addCell('2 + 2');
    const queued = run(queuedId);
    await eventAfter(events.length - 1, 'notebook.cellState', (e) => e.cellId === queuedId && e.state === 'queued');

    const from = events.length;
    const killedAt = Date.now();
    await remote!.kill();
    const said = await eventAfter(from, 'notebook.kernelStatus', kernelIs('disconnected'), 15_000);
    const elapsed = Date.now() - killedAt;
    console.log(`[remote-outage] killed server: "${said.kernel.message}" after ${elapsed} ms`);
    expect(said.kernel.message).toMatch(NOT_ANSWERING);
    expect(elapsed).toBeLessThan(10_000);
    expect(await queued).toMatchObject({ status: 'aborted', reason: said.kernel.message });

    // Back on the same port without the kernel: the notebook says the kernel is gone, and the running cell ends.
    await remote!.restart();
    const gone = await eventAfter(from, 'notebook.kernelStatus', kernelIs('dead'), 30_000);
    expect(gone.kernel.message).toMatch(/kernel is gone.*Restart/);
    const cutOff = await long.result;
    expect(cutOff).toMatchObject({ status: 'aborted', reason: gone.kernel.message });
    // What it printed before the server died is kept.
    expect(text(cutOff.outputs)).toBe('started\n');

    const restarted = await running.bridge.request('notebook.restart', { path: NB });
    expect(restarted.status).toBe('idle');
    expect(restarted.message).toBeUndefined();
    expect(text((await run(await addCell('40 + 2'))).outputs)).toBe('42');
  }, 120_000);
});

import { randomBytes } from 'node:crypto';
import { expect, test as base } from './support/fixtures';
import { cell, cellOf, editCell, notebook, openNotebook, outputOf } from './support/notebook';
import { mod, openFile } from './support/ui';
import { startRemoteJupyter, type RemoteJupyterServer } from '../test-support/remote-jupyter';

/**
 * A notebook on a remote Jupyter server (the project config's `jupyter.url`, its token from `token_env`; the
 * fixture workspace is trusted): the server is killed while a cell runs with another queued, then started again
 * on the same port. The server is a second, real `jupyter server`, started before the web host and stopped after it.
 */

const TOKEN_VAR = 'KILN_E2E_REMOTE_JUPYTER_TOKEN';
const TOKEN = randomBytes(16).toString('hex');
const KERNEL_START = 60_000;
const NOT_ANSWERING = /Jupyter server at http:\/\/127\.0\.0\.1:\d+\/ is not answering; retrying/;

let remote: RemoteJupyterServer | null = null;

const test = base.extend({
  // The server and the config go in before the web host starts on the workspace (the host depends on it).
  workspace: async ({ workspace }, use) => {
    remote = await startRemoteJupyter(workspace.root, { token: TOKEN });
    try {
      await workspace.write('.kiln/config.yaml', `jupyter:\n  url: ${remote.url}\n  token_env: ${TOKEN_VAR}\n`);
      await workspace.write(
        'remote.ipynb',
        notebook(
          cell('code', "import time\nprint('started', flush=True)\ntime.sleep(60)"),
          cell('code', '"queued"'),
          cell('code', '40 + 2'),
        ),
      );
      await workspace.write('src/remote_mod.py', 'def scale(n):\n    factor = 3\n    return n * factor\n');
      await workspace.write(
        'remote-debug.ipynb',
        notebook(cell('code', "import sys\nsys.path.insert(0, 'src')\nimport remote_mod\nprint(remote_mod.scale(2))")),
      );
      await use(workspace);
    } finally {
      await remote.close();
      remote = null;
    }
  },
});
test.use({ hostEnv: { [TOKEN_VAR]: TOKEN } });

test('a remote server that dies is said so on the toolbar and the cells, and Restart brings a kernel back', async ({
  page,
  kiln,
}) => {
  test.setTimeout(180_000);
  await kiln.open(page);
  const nb = await openNotebook(page, 'remote.ipynb');
  const status = nb.getByRole('status');
  await expect(status).toHaveText('idle', { timeout: KERNEL_START });

  await cellOf(nb, 1).getByRole('button', { name: 'Run cell', exact: true }).click();
  await expect(outputOf(nb, 1)).toContainText('started', { timeout: 30_000 });
  await cellOf(nb, 2).getByRole('button', { name: 'Run cell', exact: true }).click();
  await expect(cellOf(nb, 2)).toHaveAttribute('data-state', 'queued');

  const killedAt = Date.now();
  await remote!.kill();
  await expect(status).toHaveText(NOT_ANSWERING, { timeout: 10_000 });
  console.log(`[remote-jupyter e2e] toolbar said "${await status.textContent()}" after ${Date.now() - killedAt} ms`);
  // The queued cell ended as not run, with why; the running one says why it waits.
  await expect(cellOf(nb, 2)).toHaveAttribute('data-state', 'idle');
  await expect(cellOf(nb, 2).getByRole('note', { name: 'Not run' })).toHaveText(NOT_ANSWERING);
  await expect(cellOf(nb, 1).getByRole('note', { name: 'Waiting' })).toHaveText(NOT_ANSWERING);
  await expect(outputOf(nb, 1)).toContainText('started');
  await page.screenshot({ path: test.info().outputPath('remote-not-answering.png') });

  // Back on the same port, without the kernel: the notebook says so and offers a new kernel.
  await remote!.restart();
  const gone = page.getByRole('alert').filter({ hasText: 'The kernel is gone' });
  await expect(gone).toBeVisible({ timeout: 30_000 });
  await expect(cellOf(nb, 1)).toHaveAttribute('data-state', 'idle');
  await expect(cellOf(nb, 1).getByRole('note', { name: 'Not run' })).toContainText('The kernel is gone');
  await page.screenshot({ path: test.info().outputPath('remote-kernel-gone.png') });
  await gone.getByRole('button', { name: 'Start a new kernel' }).click();
  await expect(status).toHaveText('idle', { timeout: KERNEL_START });
  await cellOf(nb, 3).getByRole('button', { name: 'Run cell', exact: true }).click();
  await expect(outputOf(nb, 3)).toContainText('42', { timeout: 30_000 });
  await expect(cellOf(nb, 3).getByRole('note')).toHaveCount(0);
});

test("a file's breakpoint is not sent to a remote server's kernel: the Debugger panel says so in one line", async ({
  page,
  kiln,
}) => {
  test.setTimeout(180_000);
  await kiln.open(page);
  const nb = await openNotebook(page, 'remote-debug.ipynb');
  await expect(nb.getByRole('status')).toHaveText('idle', { timeout: KERNEL_START });
  await openFile(page, 'src', 'remote_mod.py');
  const file = page.locator('.code-editor[data-path="src/remote_mod.py"]');
  await file.locator('.view-line').nth(1).click();
  await page.keyboard.press('F9');
  await expect(file).toHaveAttribute('data-breakpoints', '2');

  await page.getByRole('tab', { name: 'remote-debug.ipynb', exact: true }).click();
  await editCell(nb, 1);
  await page.keyboard.press(`${mod}+End`);
  await page.keyboard.press('F9');
  await expect(cellOf(nb, 1).locator('.nb-editor')).toHaveAttribute('data-breakpoints', '4');
  await cellOf(nb, 1).hover();
  await cellOf(nb, 1).getByRole('button', { name: 'Debug Cell' }).click();
  const panel = page.getByRole('region', { name: 'Debugger' });
  await expect(panel.getByRole('list', { name: 'Call Stack' }).getByRole('listitem')).toHaveText([/Cell 1:4$/], {
    timeout: 30_000,
  });
  await expect(panel.getByRole('note')).toHaveText('Breakpoints in files stop only on a local kernel');
  await page.screenshot({ path: test.info().outputPath('remote-file-breakpoints-notice.png') });
  // Continue runs through the module's marked line without stopping.
  await panel.getByRole('button', { name: 'Continue' }).click();
  await expect(outputOf(nb, 1)).toContainText('6', { timeout: 30_000 });
  await expect(panel).toHaveCount(0);
});

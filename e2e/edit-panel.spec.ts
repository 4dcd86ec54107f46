import { rename, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { FILE_EDITING_SNIPPET } from '../shared/contract';
import { expect, type TempWorkspace } from './support/fixtures';
import { testWithModel } from './support/model';
import { ModelServer, reply } from '../test-support/model-server';
import { openFile, sendMessage } from './support/ui';

/** Each test gets its own scripted model server on loopback (real HTTP, real AI SDK client path). */
const test = testWithModel(['scripted-coder', 'other-coder']);

const APP = 'def greet(name):\n    return f"hello {name}"\n\nprint(greet("kiln"))\n';
const APP_RENAMED = 'def greet(person):\n    return f"hello {person}"\n\nprint(greet("kiln"))\n';

function configYaml(baseUrl: string): string {
  return `models:
  scripted:
    provider: openai-compatible
    base_url: ${baseUrl}
    model: scripted-coder
  other:
    provider: openai-compatible
    base_url: ${baseUrl}
    model: other-coder

file_editing:
  model: scripted
`;
}

async function configure(workspace: TempWorkspace, model: ModelServer): Promise<void> {
  await workspace.write('.kiln/config.yaml', configYaml(model.url));
}

function panel(page: Page): Locator {
  return page.getByRole('complementary', { name: 'Edit assistant' });
}

/** The centre's proposal diff. */
function review(page: Page): Locator {
  return page.getByRole('region', { name: /^Proposed changes to / });
}

function ask(page: Page, text: string): Promise<void> {
  return sendMessage(panel(page), text);
}

/** Opens src/app.py, asks for the rename and waits until its proposal's diff is painted. */
async function proposeRename(
  page: Page,
  kiln: { open(page: Page): Promise<void> },
  model: ModelServer,
  text: string,
): Promise<void> {
  model.enqueue(reply.propose(APP_RENAMED, text));
  await kiln.open(page);
  await openFile(page, 'src', 'app.py');
  await ask(page, 'Rename name to person');
  await expectDiffShown(page, 'hello {name}', 'hello {person}');
}

/** The diff editor painted in the centre, with both sides' text. */
async function expectDiffShown(page: Page, removed: string, added: string): Promise<void> {
  const diff = review(page).getByTestId('diff-view');
  await expect(diff).toBeVisible();
  await expect(diff.locator('.modified').getByText(added).first()).toBeVisible();
  await expect(diff.getByText(removed).first()).toBeVisible();
}

test.describe('edit assistant', () => {
  test('empty state shows the snippet; writing the config enables the panel without a reload', async ({
    page,
    kiln,
    workspace,
    model,
  }) => {
    await kiln.open(page);
    await expect(page.getByRole('tab', { name: 'Edit' })).toHaveAttribute('aria-selected', 'true');
    await expect(page.getByRole('tab', { name: 'Agent' })).toBeVisible();
    const p = panel(page);
    await expect(p).toBeVisible();
    const snippet = p.getByLabel('Config snippet');
    await expect(snippet).toBeVisible();
    expect(await snippet.textContent()).toBe(FILE_EDITING_SNIPPET);
    // The ADR's snippet: the model, an optional list of config:/ prompt files, and that both files hot-reload.
    await expect(snippet).toContainText('file_editing:\n  model: smart-generalist\n  system_prompt:');
    await expect(snippet).toContainText('- config:/prompts/files.md');
    await expect(snippet).toContainText('Both files hot-reload');
    await expect(p.getByText('Heavier, multi-file work belongs in a full agent session')).toBeVisible();
    await expect(p.getByRole('textbox', { name: 'Message' })).toBeDisabled();
    await openFile(page, 'src', 'app.py');
    await page.screenshot({ path: test.info().outputPath('kiln-edit-empty.png') });

    await configure(workspace, model);
    await expect(snippet).toHaveCount(0);
    await expect(p.getByRole('textbox', { name: 'Message' })).toBeEnabled();
    await expect(p.getByRole('combobox', { name: 'Model' })).toContainText('scripted');

    // The Agent tab is a separate panel; Edit comes back with its state.
    await page.getByRole('tab', { name: 'Agent' }).click();
    await expect(page.getByRole('complementary', { name: 'Agent' })).toBeVisible();
    await expect(p).toHaveCount(0);
    await page.getByRole('tab', { name: 'Edit' }).click();
    await expect(p.getByRole('textbox', { name: 'Message' })).toBeEnabled();
  });

  test('an invalid config shows file, line and problem as an alert', async ({ page, kiln, workspace }) => {
    await workspace.write(
      '.kiln/config.yaml',
      'models:\n  broken:\n    provider: carrier-pigeon\n    model: x\nfile_editing:\n  model: broken\n',
    );
    await kiln.open(page);
    const alert = panel(page).getByRole('alert', { name: 'Config error' });
    await expect(alert).toBeVisible();
    await expect(alert).toContainText('.kiln/config.yaml:');
    await expect(alert).toContainText('provider');
  });

  test('ask: text streams, the proposal is a chip, the centre shows the diff in both layouts; Accept writes', async ({
    page,
    kiln,
    workspace,
    model,
  }) => {
    await configure(workspace, model);
    let seenStreaming!: () => void;
    const pause = { afterChunks: 6, until: new Promise<void>((resolve) => (seenStreaming = resolve)) };
    model.enqueue(
      reply.propose(APP_RENAMED, 'Renaming `name` to `person` throughout the file.', { chunkSize: 3, pause }),
    );
    await kiln.open(page);
    await openFile(page, 'src', 'app.py');
    await ask(page, 'Rename name to person');

    const p = panel(page);
    const transcript = p.getByRole('log', { name: 'Transcript' });
    await expect(transcript.getByText('Rename name to person')).toBeVisible();
    // Streaming: the assistant's text shows while it arrives (the server holds the rest until this is seen).
    await expect(transcript.locator('[data-streaming="true"]')).toBeVisible();
    await expect(transcript).toContainText('Renaming');
    await expect(transcript).not.toContainText('throughout the file');
    seenStreaming();
    await expect(transcript.getByText('Renaming name to person throughout the file.')).toBeVisible();
    const chip = p.getByRole('button', { name: /^Proposed changes/ });
    await expect(chip).toBeVisible();
    await expect(chip).toContainText('+2');
    await expect(chip).toContainText('−2');
    // The chip is never the file's text.
    await expect(transcript.getByText('return f"hello {person}"')).toHaveCount(0);

    await expectDiffShown(page, 'hello {name}', 'hello {person}');
    const sideBySide = p.getByRole('switch', { name: 'Side by side' });
    await expect(sideBySide).toHaveAttribute('aria-checked', 'true');
    await expect(review(page).locator('.monaco-diff-editor.side-by-side')).toBeVisible();
    await page.screenshot({ path: test.info().outputPath('kiln-edit-diff-side.png') });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: test.info().outputPath('kiln-edit-diff-dark.png') });
    await page.emulateMedia({ colorScheme: 'light' });
    await sideBySide.click();
    await expect(sideBySide).toHaveAttribute('aria-checked', 'false');
    await expect(review(page).locator('.monaco-diff-editor.side-by-side')).toHaveCount(0);
    await expectDiffShown(page, 'hello {name}', 'hello {person}');
    await page.screenshot({ path: test.info().outputPath('kiln-edit-diff-inline.png') });

    expect(await workspace.read('src/app.py')).toBe(APP);
    await p.getByRole('button', { name: 'Accept' }).click();
    await expect.poll(() => workspace.read('src/app.py')).toBe(APP_RENAMED);
    await expect(review(page)).toHaveCount(0);
    await expect(chip).toContainText('written');
    // The editor shows what was written.
    await expect(page.locator('.code-editor').getByText('def greet(person):')).toBeVisible();
    // The session persists and the layout choice is a pref: both survive a reload.
    await page.reload();
    await openFile(page, 'src', 'app.py');
    await panel(page)
      .getByRole('button', { name: /^Proposed changes/ })
      .click();
    await expect(panel(page).getByRole('switch', { name: 'Side by side' })).toHaveAttribute('aria-checked', 'false');
  });

  test('Reject keeps the disk unchanged; the rejected proposal stays viewable from its chip', async ({
    page,
    kiln,
    workspace,
    model,
  }) => {
    await configure(workspace, model);
    await proposeRename(page, kiln, model, 'Here you go.');
    const p = panel(page);
    await p.getByRole('button', { name: 'Reject' }).click();
    await expect(review(page)).toHaveCount(0);
    const chip = p.getByRole('button', { name: /^Proposed changes/ });
    await expect(chip).toContainText('declined');
    await expect(p.getByText('Rejected proposal: the file is unchanged')).toBeVisible();
    expect(await workspace.read('src/app.py')).toBe(APP);
    await chip.click();
    await expectDiffShown(page, 'hello {name}', 'hello {person}');
    await expect(p.getByRole('button', { name: 'Reject' })).toBeDisabled();
    expect(await workspace.read('src/app.py')).toBe(APP);
  });

  test('an edit behind the session shows the marker and the next run gets the disk content', async ({
    page,
    kiln,
    workspace,
    model,
  }) => {
    await configure(workspace, model);
    model.enqueue(reply.text('Sure, what should change?'), reply.propose(APP_RENAMED.replace('kiln', 'operator')));
    await kiln.open(page);
    await openFile(page, 'src', 'app.py');
    await ask(page, 'Hello');
    const p = panel(page);
    await expect(p.getByText('Sure, what should change?')).toBeVisible();

    const edited = APP.replace('"kiln"', '"operator"');
    await workspace.write('src/app.py', edited);
    await expect(p.getByText(/changed on disk/)).toBeVisible();
    await ask(page, 'Now rename name to person');
    await expect(p.getByRole('button', { name: /^Proposed changes/ })).toBeVisible();
    // The model saw the new disk content, marked as changed on disk.
    const sent = JSON.stringify(model.lastChatRequest?.messages ?? []);
    expect(sent).toContain('greet(\\"operator\\")');
    expect(sent).toMatch(/changed on disk/i);
    // The diff is against the new baseline: only the rename shows.
    await expectDiffShown(page, 'hello {name}', 'hello {person}');
    await expect(p.getByRole('button', { name: /^Proposed changes/ })).toContainText('+2');
    await page.screenshot({ path: test.info().outputPath('kiln-edit-marker.png') });
  });

  test('a file over 256 KB asks for confirmation first, then works', async ({ page, kiln, workspace, model }) => {
    await configure(workspace, model);
    const line = 'x = 1  # padding padding padding padding padding padding padding padding\n';
    const big = line.repeat(Math.ceil((300 * 1024) / line.length));
    await workspace.write('big.py', big);
    model.enqueue(reply.propose(`# header\n${big}`));
    await kiln.open(page);
    await openFile(page, 'big.py');
    const p = panel(page);
    const warning = p.getByRole('alert').filter({ hasText: 'full agent session' });
    await expect(warning).toBeVisible();
    await expect(p.getByRole('textbox', { name: 'Message' })).toBeDisabled();
    await page.screenshot({ path: test.info().outputPath('kiln-edit-large.png') });
    await warning.getByRole('button', { name: 'Continue anyway' }).click();
    await ask(page, 'Add a header comment');
    await expect(p.getByRole('button', { name: /^Proposed changes/ })).toContainText('+1');
    await expect(review(page).getByTestId('diff-view').getByText('# header')).toBeVisible();
    // The warning stays while working on the file.
    await expect(p.getByRole('alert').filter({ hasText: 'full agent session' })).toBeVisible();
  });

  test('Clear deletes the session: the transcript empties and the next run starts cold', async ({
    page,
    kiln,
    workspace,
    model,
  }) => {
    await configure(workspace, model);
    model.enqueue(reply.text('First answer.'), reply.text('Second answer.'));
    await kiln.open(page);
    await openFile(page, 'src', 'app.py');
    await ask(page, 'First question');
    const p = panel(page);
    const transcript = p.getByRole('log', { name: 'Transcript' });
    await expect(transcript.getByText('First answer.')).toBeVisible();
    await p.getByRole('button', { name: 'Clear' }).click();
    await expect(transcript.getByText('First question')).toHaveCount(0);
    await expect(transcript.getByText('First answer.')).toHaveCount(0);
    await ask(page, 'Second question');
    await expect(transcript.getByText('Second answer.')).toBeVisible();
    const sent = JSON.stringify(model.lastChatRequest?.messages ?? []);
    expect(sent).toContain('Second question');
    expect(sent).not.toContain('First question');
  });

  test('a 401 from the model server is an alert in the transcript and the disk is unchanged', async ({
    page,
    kiln,
    workspace,
    model,
  }) => {
    await configure(workspace, model);
    model.enqueue(reply.status(401, 'Invalid API key'));
    await kiln.open(page);
    await openFile(page, 'src', 'app.py');
    await ask(page, 'Rename name to person');
    const alert = panel(page).getByRole('log', { name: 'Transcript' }).getByRole('alert');
    await expect(alert).toBeVisible();
    await expect(alert).toContainText(/401|key|auth/i);
    await expect(panel(page).getByRole('button', { name: 'Send', exact: true })).toBeDisabled(); // empty message
    expect(await workspace.read('src/app.py')).toBe(APP);
    await page.screenshot({ path: test.info().outputPath('kiln-edit-error.png') });
  });

  test('an unreachable server and a malformed tool call are alerts too', async ({ page, kiln, workspace, model }) => {
    await workspace.write('.kiln/config.yaml', configYaml('http://127.0.0.1:9/v1'));
    await kiln.open(page);
    await openFile(page, 'src', 'app.py');
    await ask(page, 'Hello?');
    const transcript = panel(page).getByRole('log', { name: 'Transcript' });
    await expect(transcript.getByRole('alert')).toHaveCount(1);

    await configure(workspace, model);
    model.enqueue(reply.malformedToolArgs());
    await expect
      .poll(async () => {
        await ask(page, 'Rename it');
        return transcript.getByRole('alert').count();
      })
      .toBeGreaterThan(1);
    await expect(transcript.getByRole('alert').last()).toContainText(/malformed|JSON/i);
    expect(await workspace.read('src/app.py')).toBe(APP);
  });

  test('Stop aborts a streaming run', async ({ page, kiln, workspace, model }) => {
    await configure(workspace, model);
    model.enqueue(reply.slow('word '.repeat(400), 40));
    await kiln.open(page);
    await openFile(page, 'src', 'app.py');
    await ask(page, 'Write a lot');
    const p = panel(page);
    await expect(p.locator('[data-streaming="true"]')).toBeVisible();
    await p.getByRole('button', { name: 'Stop' }).click();
    await expect(p.getByText('Stopped')).toBeVisible();
    await expect(p.getByRole('button', { name: 'Stop' })).toBeDisabled();
    expect(await workspace.read('src/app.py')).toBe(APP);
  });

  test('the transcript follows a long answer while at its end, and stays where the operator scrolled up to', async ({
    page,
    kiln,
    workspace,
    model,
  }) => {
    await configure(workspace, model);
    const lines = (from: number) => Array.from({ length: 60 }, (_, i) => `line ${from + i}\n`).join('');
    // The first 60 lines outgrow the panel; then the stream waits until the operator has scrolled up.
    let scrolledUp!: () => void;
    const CHUNK = 40;
    model.enqueue({
      text: lines(1) + lines(61),
      chunkSize: CHUNK,
      // One SSE event for the role, then the text's chunks.
      pause: { afterChunks: 1 + Math.ceil(lines(1).length / CHUNK), until: new Promise<void>((r) => (scrolledUp = r)) },
    });
    await kiln.open(page);
    await openFile(page, 'src', 'app.py');
    await ask(page, 'Write a lot');
    const log = panel(page).getByRole('log', { name: 'Transcript' });
    const fromEnd = () => log.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight);
    const frames = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    await expect(log).toContainText('line 60');
    expect(await log.evaluate((el) => el.scrollHeight > el.clientHeight * 1.5)).toBe(true);
    await expect.poll(fromEnd).toBeLessThan(2);

    await log.evaluate((el) => (el.scrollTop = 0));
    await frames();
    scrolledUp();
    await expect(log).toContainText('line 120');
    await expect(panel(page).locator('[data-streaming="true"]')).toHaveCount(0);
    await frames();
    expect(await log.evaluate((el) => el.scrollTop)).toBe(0);

    // Back at the end, it follows the next answer.
    await log.evaluate((el) => (el.scrollTop = el.scrollHeight));
    await frames();
    model.enqueue(reply.text(lines(121)));
    await ask(page, 'More');
    await expect(log).toContainText('line 180');
    await expect.poll(fromEnd).toBeLessThan(2);
  });

  test('the model picker overrides the model for this session', async ({ page, kiln, workspace, model }) => {
    await configure(workspace, model);
    model.enqueue(reply.text('From the other model.'));
    await kiln.open(page);
    await openFile(page, 'src', 'app.py');
    await panel(page).getByRole('combobox', { name: 'Model' }).selectOption('other');
    await expect(panel(page).getByRole('combobox', { name: 'Model' })).toHaveValue('other');
    await ask(page, 'Hi');
    await expect(panel(page).getByText('From the other model.')).toBeVisible();
    expect(model.lastChatRequest?.model).toBe('other-coder');
  });

  test('a stale Accept is refused and the outside edit survives; reviewed against the current file, accepting writes knowingly', async ({
    page,
    kiln,
    workspace,
    model,
  }) => {
    // Whole-second mtime, so a replacement can carry the very same mtime and size (as with `rsync -t` or
    // a restore): only the content hash can tell, and it does.
    const MTIME = 1_700_000_000;
    await utimes(workspace.abs('src/app.py'), MTIME, MTIME);
    await configure(workspace, model);
    await proposeRename(page, kiln, model, 'Renamed.');
    const p = panel(page);

    const other = APP.replace('"kiln"', '"KILN"');
    expect(other.length).toBe(APP.length);
    const swap = path.join(path.dirname(workspace.root), `${path.basename(workspace.root)}-swap.py`);
    await writeFile(swap, other);
    await utimes(swap, MTIME, MTIME);
    await rename(swap, workspace.abs('src/app.py'));

    await p.getByRole('button', { name: 'Accept' }).click();
    const alert = p.getByRole('alert').filter({ hasText: 'changed on disk since this proposal was made' });
    await expect(alert).toBeVisible();
    await expect(alert.getByRole('button')).toHaveText(['Review against current file', 'Discard']);
    await page.screenshot({ path: test.info().outputPath('kiln-edit-stale.png') });
    expect(await workspace.read('src/app.py')).toBe(other);
    await expect(p.getByRole('button', { name: /^Proposed changes/ })).toContainText('pending');

    await alert.getByRole('button', { name: 'Review against current file' }).click();
    await expect(review(page)).toContainText('On disk ↔ proposal');
    await expectDiffShown(page, '"KILN"', 'hello {person}');
    await page.screenshot({ path: test.info().outputPath('kiln-edit-review-disk.png') });
    expect(await workspace.read('src/app.py')).toBe(other);
    await p.getByRole('button', { name: 'Accept' }).click();
    await expect.poll(() => workspace.read('src/app.py')).toBe(APP_RENAMED);
    await expect(p.getByRole('button', { name: /^Proposed changes/ })).toContainText('written');
  });

  test('Discard on a stale proposal rejects it and leaves the file as it is on disk', async ({
    page,
    kiln,
    workspace,
    model,
  }) => {
    await configure(workspace, model);
    await proposeRename(page, kiln, model, 'Renamed.');
    const p = panel(page);
    const other = `${APP}# edited elsewhere\n`;
    await workspace.write('src/app.py', other);
    await expect(p.getByText(/changed on disk/).first()).toBeVisible();
    await p.getByRole('button', { name: 'Accept' }).click();
    await p.getByRole('alert').getByRole('button', { name: 'Discard' }).click();
    await expect(p.getByRole('button', { name: /^Proposed changes/ })).toContainText('declined');
    expect(await workspace.read('src/app.py')).toBe(other);
  });
});

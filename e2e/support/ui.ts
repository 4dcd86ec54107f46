/** Playwright helpers for what an operator does in Kiln: the tree, tabs, the assistant panels. */
import { expect, type Locator, type Page } from '@playwright/test';

/** The explorer's ARIA tree. */
export function fileTree(page: Page): Locator {
  return page.getByRole('tree', { name: 'Files' });
}

/** One entry of the tree by its exact file name. */
export function treeItem(page: Page, name: string): Locator {
  return fileTree(page).getByRole('treeitem', { name, exact: true });
}

/** A real mouse drag: press on the source, move in steps (past the drag threshold), release on the target. */
export async function dragWithMouse(
  page: Page,
  source: Locator,
  target: Locator | { x: number; y: number },
  options: { release?: boolean } = {},
): Promise<void> {
  const from = (await source.boundingBox())!;
  const start = { x: from.x + 40, y: from.y + from.height / 2 };
  await page.mouse.move(start.x, start.y);
  await page.mouse.down();
  await page.mouse.move(start.x + 6, start.y + 6, { steps: 3 });
  let end: { x: number; y: number };
  if ('x' in target) end = target;
  else {
    const to = (await target.boundingBox())!;
    end = { x: to.x + 40, y: to.y + to.height / 2 };
  }
  await page.mouse.move(end.x, end.y, { steps: 10 });
  if (options.release !== false) await page.mouse.up();
}

/** A row's flash as the page showed it: which kind (`flash` for another program, `flash-agent`) and the row's title then. */
export interface FlashSeen {
  path: string;
  flash: 'flash' | 'flash-agent';
  title: string;
}

/**
 * Records every flash the tree shows from now on, in the page itself. A flash lasts a moment; a test
 * process slowed by a busy machine can miss it between two checks, the page's own observer cannot.
 * Returns what has been seen so far, for `expect.poll`.
 */
export async function recordFlashes(page: Page): Promise<() => Promise<FlashSeen[]>> {
  await page.evaluate(() => {
    const seen: FlashSeen[] = [];
    const tree = document.querySelector('[role="tree"]')!;
    const look = () => {
      for (const row of tree.querySelectorAll<HTMLElement>('.tree-row.flash, .tree-row.flash-agent')) {
        const flash = row.classList.contains('flash-agent') ? 'flash-agent' : 'flash';
        const at = { path: row.dataset.path ?? '', flash, title: row.title } as const;
        if (!seen.some((s) => s.path === at.path && s.flash === at.flash && s.title === at.title)) seen.push(at);
      }
    };
    new MutationObserver(look).observe(tree, {
      subtree: true,
      childList: true,
      attributes: true,
      attributeFilter: ['class', 'title'],
    });
    (window as unknown as { kilnFlashes: FlashSeen[] }).kilnFlashes = seen;
  });
  return () => page.evaluate(() => (window as unknown as { kilnFlashes: FlashSeen[] }).kilnFlashes);
}

export async function clipboardText(page: Page): Promise<string> {
  return page.evaluate(() => navigator.clipboard.readText());
}

/** Opens a folder in the tree unless it is open already (src/ opens by itself on first load). */
export async function expandFolder(page: Page, name: string): Promise<void> {
  const item = treeItem(page, name);
  await item.waitFor();
  if ((await item.getAttribute('aria-expanded')) !== 'true') await item.click();
  await expect(item).toHaveAttribute('aria-expanded', 'true');
}

/** Opens a file from the tree: its folders first (e.g. `openFile(page, 'src', 'app.py')`), then the file, whose tab shows. */
export async function openFile(page: Page, ...segments: string[]): Promise<void> {
  for (const folder of segments.slice(0, -1)) await expandFolder(page, folder);
  const name = segments[segments.length - 1];
  await treeItem(page, name).click();
  await expect(page.getByRole('tab', { name, exact: true })).toBeVisible();
}

/** Sends a message from an assistant panel (Edit or Agent) once its composer is enabled. */
export async function sendMessage(panel: Locator, text: string): Promise<void> {
  const message = panel.getByRole('textbox', { name: 'Message' });
  await expect(message).toBeEnabled();
  await message.fill(text);
  await panel.getByRole('button', { name: 'Send', exact: true }).click();
}

/** The platform's command modifier, as Kiln's key bindings read it. */
export const mod = process.platform === 'darwin' ? 'Meta' : 'Control';

/** The lines of the open text editor (Monaco). */
export function editorText(page: Page): Locator {
  return page.locator('.code-editor .monaco-editor .view-lines');
}

/** Types at the end of the open document in Monaco. */
export async function typeAtEnd(page: Page, text: string): Promise<void> {
  await editorText(page).click();
  await page.keyboard.press(`${mod}+End`);
  // A word suggestion left open by earlier typing would take the Enter.
  await page.keyboard.press('Escape');
  await page.keyboard.type(text);
}

/** The restricted-mode "Trust this folder…" button in `where` (the banner or a panel), then Trust in the dialog it opens. */
export async function trustFolderFrom(page: Page, where: Locator): Promise<void> {
  await where.getByRole('button', { name: 'Trust this folder…' }).click();
  await page
    .getByRole('dialog', { name: 'Trust this folder?' })
    .getByRole('button', { name: 'Trust', exact: true })
    .click();
}

/** Opens Find in Files with its shortcut: the Search view and its query box. */
export async function openFindInFiles(page: Page): Promise<{ view: Locator; box: Locator }> {
  await page.keyboard.press(`${mod}+Shift+f`);
  const view = page.getByRole('region', { name: 'Search' });
  return { view, box: view.getByRole('textbox', { name: 'Search', exact: true }) };
}

/** Opens Kiln, then a file from the tree (`['src', 'app.py']`), and types at the end of it. */
export async function openAndTypeAtEnd(
  page: Page,
  kiln: { open(page: Page): Promise<void> },
  segments: string[],
  text: string,
): Promise<void> {
  await kiln.open(page);
  await openFile(page, ...segments);
  await typeAtEnd(page, text);
}

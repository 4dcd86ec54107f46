import type { Locator, Page } from '@playwright/test';
import { expect } from './fixtures';

/** One cell of an .ipynb file as the specs write it. */
export interface CellJson {
  cell_type: string;
  id: string;
  metadata: Record<string, unknown>;
  source: string;
  execution_count?: number | null;
  outputs?: unknown[];
}

let nextId = 0;

/** A fresh cell with a unique id, keys in the order Jupyter writes them; a code cell has not run yet. */
export function cell(type: 'code' | 'markdown', source: string, metadata: Record<string, unknown> = {}): CellJson {
  nextId += 1;
  const id = `cell-${nextId}`;
  return type === 'code'
    ? { cell_type: type, execution_count: null, id, metadata, outputs: [], source }
    : { cell_type: type, id, metadata, source };
}

/** An nbformat 4.5 notebook for the python3 kernel, as Jupyter writes the file (one-space indent, final newline). */
export function notebook(...cells: CellJson[]): string {
  return `${JSON.stringify(
    {
      cells,
      metadata: {
        kernelspec: { display_name: 'Python 3 (ipykernel)', language: 'python', name: 'python3' },
        language_info: { name: 'python' },
      },
      nbformat: 4,
      nbformat_minor: 5,
    },
    null,
    1,
  )}\n`;
}

export function notebookOf(page: Page, name: string): Locator {
  return page.getByRole('region', { name, exact: true });
}

export function cellOf(nb: Locator, n: number): Locator {
  return nb.getByRole('group', { name: `Cell ${n}`, exact: true });
}

export function outputOf(nb: Locator, n: number): Locator {
  return cellOf(nb, n).getByRole('region', { name: 'Output', exact: true });
}

/** Opens a notebook from the Files tree; resolves with its view once it shows. */
export async function openNotebook(page: Page, name: string): Promise<Locator> {
  await page.getByRole('tree', { name: 'Files' }).getByRole('treeitem', { name, exact: true }).click();
  const nb = notebookOf(page, name);
  await expect(nb).toBeVisible();
  return nb;
}

/** Clicks into a cell's editor (the cursor lands at the end of a one-line cell) and waits for its focus. */
export async function editCell(nb: Locator, n: number): Promise<void> {
  await cellOf(nb, n).locator('.nb-editor .view-lines').click();
  await expect(cellOf(nb, n).locator('.monaco-editor.focused')).toHaveCount(1);
}

/** Monaco's suggest widget while it shows. */
export function suggestions(page: Page): Locator {
  return page.locator('.suggest-widget.visible');
}

/** Each cell's source as the notebook's editors show it, in order (a markdown cell's rendered text when not edited). */
export async function cellSources(nb: Locator): Promise<string[]> {
  const texts = await nb.locator('.nb-cell').evaluateAll((cells) =>
    cells.map((c) => {
      const lines = c.querySelectorAll('.view-lines .view-line');
      if (lines.length) return [...lines].map((l) => l.textContent ?? '').join('\n');
      return (c.querySelector('.nb-markdown') ?? c.querySelector('.nb-editor-static'))?.textContent?.trim() ?? '';
    }),
  );
  // Monaco draws spaces as non-breaking ones.
  return texts.map((text) => text.replace(/\u00a0/g, ' '));
}

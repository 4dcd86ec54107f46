import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';

type ColorScheme = 'light' | 'dark';

export interface AxeOptions {
  /** The themes to check, each in turn (default both). */
  colorSchemes?: readonly ColorScheme[];
  /** Run axe's experimental rules too (one checks that a control's name contains its visible text); default true. */
  experimental?: boolean;
}

/** A violation as one readable line per node, so a failure says what to fix and where. */
function describeViolation(violation: {
  id: string;
  impact?: string | null;
  help: string;
  nodes: { target: unknown[]; failureSummary?: string }[];
}): string[] {
  return violation.nodes.map(
    (node) =>
      `${violation.impact} ${violation.id} (${violation.help}) at ${JSON.stringify(node.target)}: ${node.failureSummary?.replace(/\s+/g, ' ')}`,
  );
}

/**
 * Deque's axe-core (the engine behind Lighthouse's accessibility score) on the page as it is: its critical and
 * serious findings in each theme. Screenshots go to the test's output folder for a look at the colours. Notebook
 * HTML outputs are the notebook author's page in a script-less sandbox: axe checks the frame element, not inside it,
 * and runs in the page itself (legacy mode: no blank page to merge frames' results in). Ends in the light theme.
 */
export async function axeFindings(page: Page, screen: string, options: AxeOptions = {}): Promise<string[]> {
  const { colorSchemes = ['light', 'dark'], experimental = true } = options;
  const tags = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'];
  if (experimental) tags.push('experimental');
  const found: string[] = [];
  for (const colorScheme of colorSchemes) {
    await page.emulateMedia({ colorScheme });
    // Monaco repaints its theme on the media change; axe reads the colours after the next frame.
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    const results = await new AxeBuilder({ page }).withTags(tags).options({ iframes: false }).setLegacyMode().analyze();
    await page.screenshot({ path: test.info().outputPath(`a11y-${screen}-${colorScheme}.png`) });
    const serious = results.violations.filter((v) => v.impact === 'critical' || v.impact === 'serious');
    found.push(...serious.flatMap(describeViolation).map((line) => `${colorScheme}: ${line}`));
  }
  await page.emulateMedia({ colorScheme: 'light' });
  return found;
}

/** No critical or serious axe violation on the page as it is (see axeFindings). */
export async function expectAccessible(page: Page, screen: string, options: AxeOptions = {}): Promise<void> {
  expect(await axeFindings(page, screen, options), `axe on the ${screen} screen`).toEqual([]);
}

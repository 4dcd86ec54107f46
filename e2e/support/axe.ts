import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect } from './fixtures';

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

/** axe-core over the page as it is, in the light and dark themes, as accessibility.spec.ts runs it: no critical or serious violation. */
export async function expectAccessible(page: Page, screen: string): Promise<void> {
  const found: string[] = [];
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    const results = await new AxeBuilder({ page })
      .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice', 'experimental'])
      .options({ iframes: false })
      .setLegacyMode()
      .analyze();
    await page.screenshot({ path: `/tmp/kiln-a11y-${screen}-${colorScheme}.png` });
    const serious = results.violations.filter((v) => v.impact === 'critical' || v.impact === 'serious');
    found.push(...serious.flatMap(describeViolation).map((line) => `${colorScheme}: ${line}`));
  }
  expect(found, `axe on the ${screen} screen`).toEqual([]);
}

import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import axe from 'axe-core';
import { expect, test } from './fixtures';

type ColorScheme = 'light' | 'dark';

export interface AxeOptions {
  /** The themes to check, each in turn (default both). */
  colorSchemes?: readonly ColorScheme[];
  /**
   * Findings known and owned elsewhere, each with why: left out of the verdict but written to the test's
   * annotations, so they stay in sight. Keep this short; fix, then delete.
   */
  waived?: readonly { rule: string; target: RegExp; why: string }[];
}

/** Every rule this axe-core ships, its experimental ones (a control's name contains its visible text) included. */
export const EVERY_AXE_RULE: readonly string[] = axe.getRules().map((rule) => rule.ruleId);

/**
 * The one rule left off: WCAG AAA's 7:1 contrast. Kiln's target is AA (4.5:1, the color-contrast rule, on); Monaco's
 * own syntax colours and the VS Code palette Kiln follows sit between the two.
 */
const NOT_KILNS_TARGET = new Set(['color-contrast-enhanced']);

/**
 * axe's options turning every rule on: neither its tags nor a `runOnly` list run a rule it ships disabled
 * (label-content-name-mismatch, target-size, duplicate-id…), only `enabled: true` per rule does. HTML outputs'
 * frames are skipped (see axeFindings).
 */
export const EVERY_RULE_ON = {
  iframes: false,
  rules: Object.fromEntries(EVERY_AXE_RULE.map((id) => [id, { enabled: !NOT_KILNS_TARGET.has(id) }])),
};

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
 * Deque's axe-core (the engine behind Lighthouse's accessibility score) on the page as it is: every rule it ships, its
 * critical and serious findings in each theme. Screenshots go to the test's output folder for a look at the colours. Notebook
 * HTML outputs are the notebook author's page in a script-less sandbox: axe checks the frame element, not inside it,
 * and runs in the page itself (legacy mode: no blank page to merge frames' results in). Ends in the light theme.
 */
export async function axeFindings(page: Page, screen: string, options: AxeOptions = {}): Promise<string[]> {
  const { colorSchemes = ['light', 'dark'], waived = [] } = options;
  const found: string[] = [];
  for (const colorScheme of colorSchemes) {
    await page.emulateMedia({ colorScheme });
    // Monaco repaints its theme on the media change; axe reads the colours after the next frame.
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    const results = await new AxeBuilder({ page }).options(EVERY_RULE_ON).setLegacyMode().analyze();
    await page.screenshot({ path: test.info().outputPath(`a11y-${screen}-${colorScheme}.png`) });
    const serious = results.violations.filter((v) => v.impact === 'critical' || v.impact === 'serious');
    for (const violation of serious) {
      const waiver = (node: { target: unknown[] }) =>
        waived.find((w) => w.rule === violation.id && w.target.test(JSON.stringify(node.target)));
      for (const node of violation.nodes.filter(waiver))
        test.info().annotations.push({ type: 'axe waived', description: `${screen} ${colorScheme}: ${violation.id} at ${JSON.stringify(node.target)}: ${waiver(node)!.why}` }); // prettier-ignore
      const open = { ...violation, nodes: violation.nodes.filter((node) => !waiver(node)) };
      found.push(...describeViolation(open).map((line) => `${colorScheme}: ${line}`));
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  return found;
}

/** No critical or serious axe violation on the page as it is (see axeFindings). */
export async function expectAccessible(page: Page, screen: string, options: AxeOptions = {}): Promise<void> {
  expect(await axeFindings(page, screen, options), `axe on the ${screen} screen`).toEqual([]);
}

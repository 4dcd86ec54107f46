import { DEFAULT_FIXTURE, expect, test } from './support/fixtures';
import { cell, notebook, openNotebook, outputOf } from './support/notebook';

/**
 * Formulas cost their layout once: no scroll box of their own (the output's body scrolls a wide one), and
 * KaTeX's common fonts are there before the first formula is laid out, so none is laid out again in them.
 */

function latexOutput(source: string, latex: string) {
  return {
    ...cell('code', source),
    execution_count: 1,
    outputs: [
      {
        output_type: 'execute_result',
        execution_count: 1,
        metadata: {},
        data: { 'text/latex': latex, 'text/plain': source },
      },
    ],
  };
}

const WIDE = Array.from({ length: 40 }, (_, k) => `\\frac{x^{${k}}}{${k + 1}}`).join(' + ');
const MATH = notebook(
  latexOutput(
    'integral',
    '$\\displaystyle \\int_{0}^{1} \\frac{x^{2} + 1}{\\sqrt{x + 1}}\\, dx = \\sum_{k=1}^{9} \\binom{9}{k}$',
  ),
  // Display math ($$): KaTeX breaks inline math's lines at a +, display math never.
  latexOutput('series', `$$${WIDE}$$`),
);

const KATEX_FONTS = ['1em KaTeX_Main', 'italic 1em KaTeX_Math', '1em KaTeX_Size1', '1em KaTeX_Size2'];

test.use({ fixtureFiles: { ...DEFAULT_FIXTURE, 'math.ipynb': MATH } });

test('formulas are laid out once in their fonts, without a scroll box each; a wide one scrolls in its output', async ({
  page,
  kiln,
}) => {
  // Which fonts were loaded when the first typeset formula entered the page (before its first layout).
  await page.addInitScript((fonts: string[]) => {
    const seen = new MutationObserver(() => {
      if (!document.querySelector('.katex')) return;
      seen.disconnect();
      (window as unknown as { fontsAtFirstFormula: boolean[] }).fontsAtFirstFormula = fonts.map((font) =>
        document.fonts.check(font),
      );
    });
    seen.observe(document, { childList: true, subtree: true });
  }, KATEX_FONTS);
  await kiln.open(page);
  const nb = await openNotebook(page, 'math.ipynb');
  await expect(outputOf(nb, 1).locator('.katex-html')).toBeVisible();
  await expect(outputOf(nb, 2).locator('.katex-html')).toBeVisible();
  expect(
    await page.evaluate(() => (window as unknown as { fontsAtFirstFormula: boolean[] }).fontsAtFirstFormula),
  ).toEqual(KATEX_FONTS.map(() => true));

  // No formula, and no formula's hidden MathML, is a scroll container.
  const overflows = await nb
    .locator('.nb-out-latex, .nb-out-latex .katex-mathml')
    .evaluateAll((els) => els.map((el) => `${getComputedStyle(el).overflowX} ${getComputedStyle(el).overflowY}`));
  expect(overflows.length).toBe(4);
  for (const overflow of overflows) expect(overflow).toMatch(/^(visible|clip) (visible|clip)$/);

  // The wide formula scrolls sideways in its output's body; neither body scrolls up and down.
  const body = (n: number) => outputOf(nb, n).locator('.nb-out-body');
  const sizes = (n: number) =>
    body(n).evaluate((el) => ({ sw: el.scrollWidth, cw: el.clientWidth, sh: el.scrollHeight, ch: el.clientHeight }));
  const narrow = await sizes(1);
  const wide = await sizes(2);
  expect(narrow.sw).toBe(narrow.cw);
  expect(wide.sw).toBeGreaterThan(wide.cw);
  expect(narrow.sh).toBe(narrow.ch);
  expect(wide.sh).toBe(wide.ch);
  await body(2).evaluate((el) => (el.scrollLeft = el.scrollWidth));
  const end = outputOf(nb, 2).locator('.katex-html .mord').last();
  await expect(end).toBeInViewport();
  await page.screenshot({ path: test.info().outputPath('math-layout.png') });
});

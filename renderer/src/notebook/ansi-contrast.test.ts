import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * Every ANSI foreground colour of notebook.css keeps 4.5:1 (WCAG AA) against every background an output
 * line can have in its theme: the page, the selected cell's tint, stderr's and a traceback's red tint; so do
 * dim and bold text, and the text on each of the 16 ANSI backgrounds.
 */

type Rgb = [number, number, number];
const hex = (value: string): Rgb => [1, 3, 5].map((i) => parseInt(value.slice(i, i + 2), 16)) as Rgb;
const mix = (a: Rgb, b: Rgb, t: number): Rgb => a.map((v, i) => v * t + b[i] * (1 - t)) as Rgb;
function luminance([r, g, b]: Rgb): number {
  const channel = (v: number) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
}
function contrast(a: Rgb, b: Rgb): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}
function backgrounds(page: string, active: string, danger: string): Rgb[] {
  const tinted = mix(hex(active), hex(page), 0.06);
  return [hex(page), tinted, mix(hex(danger), hex(page), 0.1), mix(hex(danger), tinted, 0.1)];
}

const css = readFileSync(new URL('./notebook.css', import.meta.url), 'utf8');
const start = css.indexOf('.ansi-fg-black');
const darkStart = css.indexOf('@media (prefers-color-scheme: dark)', start);
function colours(part: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const [, names, colour] of part.matchAll(/((?:\.ansi-fg-[\w-]+(?:, )?)+) \{ color: (#[0-9a-f]{6}); \}/g))
    for (const [, name] of names.matchAll(/\.ansi-fg-([\w-]+)/g)) found.set(name, colour);
  return found;
}
const light = colours(css.slice(start, darkStart));
const dark = new Map([...light, ...colours(css.slice(darkStart))]);

/** A rule's declarations, by its exact selector. */
function rule(selector: string): string {
  const at = css.indexOf(`${selector} {`);
  expect(at, `${selector} is styled`).toBeGreaterThanOrEqual(0);
  return css.slice(at + selector.length + 2, css.indexOf('}', at));
}
const THEME = {
  light: { fgDim: '#59636e' },
  dark: { fgDim: '#a5adb5' },
};
const styles = readFileSync(new URL('../styles.css', import.meta.url), 'utf8');

describe('ANSI colours', () => {
  it('lists the 16 colours', () => expect(light.size).toBe(16));

  it("dims text with the theme's dim colour (which keeps 4.5:1), never a fade; bold changes weight only", () => {
    expect(rule('.ansi-dim')).not.toMatch(/opacity|filter/);
    expect(rule('.ansi-dim')).toContain('var(--fg-dim)');
    expect(rule('.ansi-bold')).toMatch(/^ font-weight: 700; $/);
    // The themes' dim colours are what styles.css declares.
    expect(styles).toContain(`--fg-dim: ${THEME.light.fgDim};`);
    expect(styles).toContain(`--fg-dim: ${THEME.dark.fgDim};`);
    for (const [theme, bgs] of [
      ['light', backgrounds('#ffffff', '#1976d2', '#cf222e')],
      ['dark', backgrounds('#1e1e1e', '#3794ff', '#f85149')],
    ] as const)
      expect(Math.min(...bgs.map((bg) => contrast(hex(THEME[theme].fgDim), bg)))).toBeGreaterThanOrEqual(4.5);
  });

  it('text on each of the 16 ANSI backgrounds keeps 4.5:1 when it has no colour of its own', () => {
    const backgroundsByName = new Map(
      [...css.matchAll(/\.ansi-bg-([\w-]+) \{ background: (#[0-9a-f]{6}); \}/g)].map(([, name, colour]) => [
        name,
        colour,
      ]),
    );
    expect(backgroundsByName.size).toBe(16);
    const textOn = new Map<string, string>();
    for (const [, selectors, colour] of css.matchAll(
      /((?:\.ansi-bg-[\w-]+:not\(\[class\*='ansi-fg-'\]\)(?:, )?)+) \{ color: (#[0-9a-f]{6}); \}/g,
    ))
      for (const [, name] of selectors.matchAll(/\.ansi-bg-([\w-]+):not/g)) textOn.set(name, colour);
    const low = [...backgroundsByName].filter(
      ([name, bg]) => !textOn.has(name) || contrast(hex(textOn.get(name)!), hex(bg)) < 4.5,
    );
    expect(low).toEqual([]);
  });

  for (const [theme, palette, bgs] of [
    ['light', light, backgrounds('#ffffff', '#1976d2', '#cf222e')],
    ['dark', dark, backgrounds('#1e1e1e', '#3794ff', '#f85149')],
  ] as const) {
    it(`meet 4.5:1 on every output background in the ${theme} theme`, () => {
      const low = [...palette].filter(([, colour]) => Math.min(...bgs.map((bg) => contrast(hex(colour), bg))) < 4.5);
      expect(low).toEqual([]);
    });
  }
});

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/*
 * docs/keyboard-shortcuts.md is one table of every key binding of the command registry. The bindings are written
 * where each feature registers its commands (`keys: 'Mod+Shift+P'`), so this reads them from the renderer's sources
 * and checks each has its row: a binding added or changed without the table shows here.
 */

const ROOT = path.resolve(__dirname, '../..');
const RENDERER = path.join(ROOT, 'renderer/src');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

const ARROWS: Record<string, string> = { ArrowUp: '↑', ArrowDown: '↓', ArrowLeft: '←', ArrowRight: '→' };

/** A binding as the table writes it: arrows as arrows, Meta as Cmd. */
function shown(binding: string): string {
  return binding.replace(/Arrow(Up|Down|Left|Right)/g, (arrow) => ARROWS[arrow]).replace(/\bMeta\+/g, 'Cmd+');
}

/** Every binding the registry is given in the renderer's sources. */
function registryBindings(): Set<string> {
  const bindings = new Set<string>();
  for (const file of sources(RENDERER)) {
    const text = readFileSync(file, 'utf8');
    for (const [, binding] of text.matchAll(/\bkeys: '([^']+)'/g)) bindings.add(shown(binding));
    // The notebook's heading keys are made from their levels (`keys: String(level)`).
    if (/\bkeys: String\(level\)/.test(text)) for (let level = 1; level <= 6; level++) bindings.add(String(level));
  }
  return bindings;
}

/** The keys of the table's rows: its first column split at `,` and `/`, asides in parentheses dropped. */
function documentedKeys(): Set<string> {
  const page = readFileSync(path.join(ROOT, 'docs/keyboard-shortcuts.md'), 'utf8');
  const keys = new Set<string>();
  for (const [, first] of page.matchAll(/^\| ([^|]+) \|/gm)) {
    const cell = first.replace(/\\/g, '').replace(/\([^)]*\)/g, '');
    for (const key of cell.split(/\s*[,/]\s*/).map((k) => k.trim())) {
      const range = /^(\d) … (\d)$/.exec(key);
      if (range) for (let n = Number(range[1]); n <= Number(range[2]); n++) keys.add(String(n));
      else if (key) keys.add(key);
    }
  }
  return keys;
}

describe('docs/keyboard-shortcuts.md', () => {
  it('finds the registry bindings it checks', () => {
    const bindings = registryBindings();
    expect(bindings).toContain('Mod+Shift+P');
    expect(bindings).toContain('D D');
    expect(bindings.size).toBeGreaterThan(40);
  });

  it('has a row for every key binding of the command registry', () => {
    const documented = documentedKeys();
    expect([...registryBindings()].filter((binding) => !documented.has(binding))).toEqual([]);
  });
});

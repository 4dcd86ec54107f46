import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { z } from 'zod';
import { ConfigFileSchema } from '../../main/config/schema';
import { DEFAULT_PREFS } from '../../main/prefs';

/*
 * docs/configuration.md is the reference of every config key and preference, and the README shows a config: both
 * are held to the code here, so a key added, renamed or dropped in the schema or the prefs shows as a failing test.
 */

const ROOT = path.resolve(__dirname, '../..');
const read = (page: string) => readFileSync(path.join(ROOT, page), 'utf8');
const REFERENCE = read('docs/configuration.md');

function yamlBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```yaml\n([\s\S]*?)^```/gm)].map(([, body]) => body);
}

/** The keys a block's schema accepts (every block is a strict object, or a record of them for `models:`). */
function keysOf(schema: z.ZodType): string[] {
  let inner: unknown = schema;
  // Unwrap preprocess/optional/record/refine layers down to the strict object.
  for (let i = 0; i < 10; i++) {
    const def = (inner as { def?: Record<string, unknown> }).def ?? {};
    if ((inner as { shape?: object }).shape) return Object.keys((inner as { shape: object }).shape);
    inner = def.innerType ?? def.out ?? def.valueType ?? def.schema ?? def.in;
    if (!inner) break;
  }
  throw new Error('no object schema found');
}

describe('the configuration documented', () => {
  for (const page of ['README.md', 'docs/configuration.md']) {
    it(`${page}: every YAML example is a valid config`, () => {
      const blocks = yamlBlocks(read(page));
      expect(blocks.length).toBeGreaterThan(0);
      for (const block of blocks) {
        const parsed = ConfigFileSchema.safeParse(parse(block));
        expect(parsed.error?.issues ?? []).toEqual([]);
      }
    });
  }

  it('docs/configuration.md has a section for every block, and a row for each of its keys', () => {
    const missing: string[] = [];
    for (const [block, schema] of Object.entries(ConfigFileSchema.shape)) {
      const section = new RegExp(`^### ${block}\\n([\\s\\S]*?)(?=^##)`, 'm').exec(REFERENCE)?.[1];
      if (!section) {
        missing.push(`### ${block}`);
        continue;
      }
      for (const key of keysOf(schema as z.ZodType))
        if (!section.includes(`| \`${key}\` |`)) missing.push(`${block}.${key}`);
    }
    expect(missing).toEqual([]);
  });

  it('docs/configuration.md lists every preference with its default', () => {
    const missing = Object.entries(DEFAULT_PREFS)
      .filter(([key]) => !new RegExp(`^\\| [^|]*\`${key.replace('.', '\\.')}\``, 'm').test(REFERENCE))
      .map(([key]) => key);
    expect(missing).toEqual([]);
  });
});

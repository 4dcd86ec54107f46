import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { VERB_NAMES } from '../../shared/contract/verbs';
import { workspaceHarnessPrompt } from '../agent/harness';
import { AUTHORING_VS_RUNNING_BLOCK, authoringVsRunning, BLOCK_ADAPTATION } from './guide';

const SEED = readFileSync(path.resolve(__dirname, '../../specs/seeds/verbs-design.txt'), 'utf8');

/** The seed's §4 block: from its heading to the line that ends it ("…let `scripts/` accumulate."). */
function seedBlock(): string[] {
  const lines = SEED.split('\n');
  const start = lines.indexOf('## Authoring vs running — use the right verb');
  const end = lines.findIndex((line, i) => i > start && line.endsWith('let `scripts/` accumulate.'));
  expect(start).toBeGreaterThan(-1);
  expect(end).toBeGreaterThan(start);
  return lines.slice(start, end + 1);
}

describe('the "Authoring vs running" block', () => {
  it("is the verbs design's block line by line, with only the two path facts adapted", () => {
    const seed = seedBlock();
    const ours = AUTHORING_VS_RUNNING_BLOCK.split('\n');
    expect(ours).toHaveLength(seed.length);
    const differing = seed.map((line, i) => [line, ours[i]] as const).filter(([theirs, mine]) => theirs !== mine);
    // The two facts sit on the second paragraph's two lines; each changes by exactly its substitution.
    expect(differing).toHaveLength(2);
    for (const [i, [theirs, mine]] of differing.entries()) {
      const [from, to] = BLOCK_ADAPTATION[i];
      expect(theirs).toContain(from);
      expect(mine).toBe(theirs.replace(from, to));
    }
  });

  it('reaches every agent whole, with Kiln’s own section after it', () => {
    for (const prompt of [authoringVsRunning(VERB_NAMES), workspaceHarnessPrompt(['run-file'])]) {
      const at = prompt.indexOf(AUTHORING_VS_RUNNING_BLOCK);
      expect(at).toBeGreaterThanOrEqual(0);
      expect(prompt.indexOf('## In Kiln')).toBeGreaterThan(at + AUTHORING_VS_RUNNING_BLOCK.length - 1);
    }
    // Kiln's additions say where kernels start, import-don't-restart, scripts/ off limits, and the sandbox's facts.
    const guide = authoringVsRunning(VERB_NAMES);
    expect(guide).toContain("A notebook's kernel starts in the notebook's folder");
    expect(guide).toContain("**Import, don't restart.**");
    expect(guide).toContain('Never write or edit files in `scripts/`');
    expect(guide).toContain("Notebook cells run in the operator's own kernel, their process, not in the sandbox.");
    expect(guide).toContain('no network');
    expect(guide).toContain('move such a folder with `shutil.move`');
  });
});

import { describe, expect, it } from 'vitest';
import { textEdit, textEditSteps } from './text-edit';

const apply = (before: string, edit: ReturnType<typeof textEdit>) =>
  before.slice(0, edit.start) + edit.text + before.slice(edit.end);

describe('textEdit', () => {
  it('finds the one edit between two texts, in blocks and across block edges', () => {
    const big = 'abcdefghij'.repeat(10_000);
    const cases: Array<[string, string]> = [
      ['', ''],
      ['', 'typed'],
      ['gone', ''],
      ['same', 'same'],
      [big, `${big.slice(0, 16 * 1024)}X${big.slice(16 * 1024)}`],
      [big, `${big.slice(0, 50_001)}${big.slice(50_002)}`],
      [big, `${big}tail`],
      [big, `head${big}`],
      ['aaaa', 'aaaaa'],
      ['abab', 'ab'],
    ];
    for (const [before, after] of cases) {
      const edit = textEdit(before, after);
      expect(apply(before, edit)).toBe(after);
      expect(edit.text.length).toBeLessThanOrEqual(Math.max(4, after.length - before.length));
    }
  });

  it('finds it in steps a caller can spread over idle moments, with the same answer', () => {
    const before = 'row of text\n'.repeat(400_000);
    const after = `${before.slice(0, 2_000_000)}typed${before.slice(2_000_000)}`;
    const steps = textEditSteps(before, after);
    let pauses = 0;
    let step = steps.next();
    for (; !step.done; step = steps.next()) pauses++;
    expect(pauses).toBeGreaterThan(10);
    expect(step.value).toEqual(textEdit(before, after));
    expect(step.value).toEqual({ start: 2_000_000, end: 2_000_000, text: 'typed' });
  });
});

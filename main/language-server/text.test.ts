import { expect, it } from 'vitest';
import { applyTextEdits, offsetAt } from './text';
import { OpenDocuments } from './documents';

it('finds offsets by line and UTF-16 character, clamped to the line and the text', () => {
  const text = 'a = "é😀"\nb = 2\n';
  expect(offsetAt(text, { line: 0, character: 6 })).toBe(6);
  expect(offsetAt(text, { line: 1, character: 0 })).toBe(text.indexOf('b'));
  expect(offsetAt(text, { line: 1, character: 99 })).toBe(text.indexOf('\n', text.indexOf('b')));
  expect(offsetAt(text, { line: 9, character: 0 })).toBe(text.length);
});

it('applies edits that refer to the original text, in any order', () => {
  const text = 'def helper(x):\n    return helper(x - 1)\n';
  const at = (line: number, character: number, length: number, newText: string) => ({
    range: { start: { line, character }, end: { line, character: character + length } },
    newText,
  });
  expect(applyTextEdits(text, [at(0, 4, 6, 'twice'), at(1, 11, 6, 'twice')])).toBe(
    'def twice(x):\n    return twice(x - 1)\n',
  );
  expect(applyTextEdits(text, [at(1, 11, 6, 'twice'), at(0, 4, 6, 'twice')])).toBe(
    'def twice(x):\n    return twice(x - 1)\n',
  );
});

it('follows a buffer through changes applied one after another, as Monaco sends them', () => {
  const docs = new OpenDocuments();
  docs.open('a.py', 1, 'x = 1\n');
  expect(
    docs.change('a.py', 2, [
      { range: { start: { line: 0, character: 4 }, end: { line: 0, character: 5 } }, text: '22' },
      { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } }, text: 'yy' },
    ]),
  ).toBe(true);
  expect(docs.get('a.py')).toEqual({ version: 2, text: 'yy = 22\n' });
  expect(docs.change('a.py', 3, [{ text: 'whole\n' }])).toBe(true);
  expect(docs.get('a.py')?.text).toBe('whole\n');
  expect(docs.change('b.py', 1, [{ text: '' }])).toBe(false);
});

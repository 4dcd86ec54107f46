import { describe, expect, it } from 'vitest';
import { expandReplacement, replaceMatches, searchRegExp } from './replace';

const first = (regex: RegExp, text: string) => regex.exec(text)!;

describe('expandReplacement', () => {
  it('expands groups, named groups, the whole match and escapes as VS Code does', () => {
    const match = first(/(?<word>(a)(b))/g, 'xab');
    expect(expandReplacement(match, '[$1|$2|$3|$<word>|$&|$$|$9]')).toBe('[ab|a|b|ab|ab|$|$9]');
    // "$10" with three groups is "$1" then "0".
    expect(expandReplacement(match, '$10')).toBe('ab0');
    expect(expandReplacement(match, 'a\\nb\\tc\\\\d')).toBe('a\nb\tc\\d');
  });
});

describe('replaceMatches', () => {
  it('replaces several matches on one line, right to left, and leaves a match whose line changed', () => {
    const regex = searchRegExp({ pattern: 'foo', matchCase: true });
    const seen = { preview: 'foo foo', previewStart: 0 };
    const result = replaceMatches(
      'foo foo\r\nbar foo\n',
      [
        { line: 1, start: 0, end: 3, ...seen },
        { line: 1, start: 4, end: 7, ...seen },
        { line: 2, start: 0, end: 3, preview: 'foo bar', previewStart: 0 },
      ],
      regex,
      'quux',
      false,
    );
    expect(result).toEqual({ text: 'quux quux\r\nbar foo\n', replaced: 2, stale: 1 });
  });
});

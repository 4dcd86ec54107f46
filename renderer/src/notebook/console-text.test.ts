import { describe, expect, it } from 'vitest';
import { parseAnsi, stripAnsi } from './ansi';
import { countLines, cutText, fixConsole } from './console-text';

describe('fixConsole', () => {
  it('leaves plain text alone', () => {
    expect(fixConsole('a\nb\n')).toBe('a\nb\n');
  });
  it('overwrites from the line start on a carriage return, like a progress bar', () => {
    expect(fixConsole('10%\r50%\r100%\ndone\n')).toBe('100%\ndone\n');
    expect(fixConsole('abcdef\rXY')).toBe('XYcdef');
    expect(fixConsole('line\r\nnext')).toBe('line\nnext');
  });
  it('applies backspaces', () => {
    expect(fixConsole('abc\b\bX')).toBe('aXc');
    expect(fixConsole('ab\b')).toBe('a');
  });
});

describe('cutText', () => {
  const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i}\n`).join('');
  it('keeps short text whole', () => {
    const cut = cutText(lines(10), 5, 5);
    expect(cut.hiddenLines).toBe(0);
    expect(cut.head).toBe(lines(10));
    expect(cut.totalLines).toBe(10);
  });
  it('keeps head and tail of 100,000 lines and counts what it hides', () => {
    const text = lines(100_000);
    const cut = cutText(text, 100, 200);
    expect(countLines(cut.head)).toBe(100);
    expect(countLines(cut.tail)).toBe(200);
    expect(cut.hiddenLines).toBe(100_000 - 300);
    expect(cut.head.startsWith('line 0\n')).toBe(true);
    expect(cut.tail.endsWith('line 99999\n')).toBe(true);
    expect(cut.tail.startsWith('line 99800\n')).toBe(true);
  });
  it('caps one enormous line', () => {
    const cut = cutText('x'.repeat(1_000_000), 10, 10, 1000);
    expect(cut.head.length + cut.tail.length).toBeLessThan(1100);
  });
});

describe('parseAnsi', () => {
  it('turns an IPython traceback line into coloured segments', () => {
    const segs = parseAnsi('\x1b[0;31mZeroDivisionError\x1b[0m: division by zero');
    expect(segs).toEqual([{ text: 'ZeroDivisionError', fg: 'red' }, { text: ': division by zero' }]);
  });
  it('knows bright, bold, 256 and true colours and drops other escapes', () => {
    expect(parseAnsi('\x1b[1;92mok\x1b[22;39m')).toEqual([{ text: 'ok', fg: 'bright-green', bold: true }]);
    expect(parseAnsi('\x1b[38;5;196mx')).toEqual([{ text: 'x', fg: 'rgb(255, 0, 0)' }]);
    expect(parseAnsi('\x1b[48;2;1;2;3my')).toEqual([{ text: 'y', bg: 'rgb(1, 2, 3)' }]);
    expect(stripAnsi('a\x1b[2Kb\x1b]0;title\x07c')).toBe('abc');
  });
  it('maps the low 256-colour entries to theme colours and the rest to the xterm palette', () => {
    expect(parseAnsi('\x1b[38;5;9ma\x1b[48;5;244mb')).toEqual([
      { text: 'a', fg: 'bright-red' },
      { text: 'b', fg: 'bright-red', bg: 'rgb(128, 128, 128)' },
    ]);
  });
  it('keeps dim, italic and underline until their reset', () => {
    expect(parseAnsi('\x1b[2;3;4mz\x1b[22mw\x1b[0mv')).toEqual([
      { text: 'z', dim: true, italic: true, underline: true },
      { text: 'w', italic: true, underline: true },
      { text: 'v' },
    ]);
  });
  it('never shows titles, links, cursor moves or charset switches as text', () => {
    const text =
      '\x1b]0;title\x07\x1b(B\x1b[?25l\x1b]8;;https://x.org\x1b\\link\x1b]8;;\x1b\\ \x1b7\x1b[31mred\x1b[0m\x1b[1A';
    expect(parseAnsi(text)).toEqual([{ text: 'link ' }, { text: 'red', fg: 'red' }]);
    expect(stripAnsi(text)).toBe('link red');
  });
});

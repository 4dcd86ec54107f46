import { describe, expect, it } from 'vitest';
import { cellMagicOf, maskCellLines } from './magics';
import { NotebookVirtualDocument } from './virtual-document';

const mask = (source: string) => maskCellLines(source.split('\n')).join('\n');

describe('maskCellLines', () => {
  it('leaves Python as it is', () => {
    const python = 'def f(x):\n    return x % 2\n\ny = f(3)  # 100% sure\nprint("!ls", 5 != 4)';
    expect(mask(python)).toBe(python);
  });

  it('turns line magics, shell escapes and help into pass, keeping indentation and line count', () => {
    expect(mask('%time x')).toBe('pass   ');
    expect(mask('!ls')).toBe('pass');
    expect(mask('!!ls -la')).toBe('pass    ');
    expect(mask('for i in range(3):\n    %timeit f(i)\n    !echo hi')).toBe(
      'for i in range(3):\n    pass        \n    pass    ',
    );
    expect(mask('len?')).toBe('pass');
    expect(mask('np.array??')).toBe('pass      ');
    expect(mask('?len')).toBe('pass');
    expect(mask('??len')).toBe('pass ');
  });

  it('keeps the name an assigned magic defines', () => {
    expect(mask('files = !ls')).toBe('files = ...');
    expect(mask('a, b = %sx echo 1 2')).toBe('a, b = ...'.padEnd('a, b = %sx echo 1 2'.length));
  });

  it('blanks a cell in another language but keeps the body of %%time', () => {
    expect(mask('%%bash\necho hi\nls -la')).toBe('      \n       \n      ');
    expect(mask('%%time\nx = 1\nprint(x)')).toBe('      \nx = 1\nprint(x)');
    expect(cellMagicOf('\n%%writefile a.py\nx')).toBe('writefile');
    expect(cellMagicOf('x = 1\n%%bash')).toBeNull();
  });

  it('does not mask inside brackets, strings or after a backslash', () => {
    const python = 'x = (1\n% 2)\ns = """\n!not a shell\n%nor a magic\n"""\nt = 1 + \\\n!2';
    expect(mask(python)).toBe(python);
    expect(mask('s = "(" \n!ls')).toBe('s = "(" \npass');
    expect(mask('s = 1  # ( not a bracket\n%pwd')).toBe('s = 1  # ( not a bracket\npass');
  });
});

describe('NotebookVirtualDocument', () => {
  const doc = new NotebookVirtualDocument([
    { id: 'a', source: 'x = 1\ndef f():\n    return x' },
    { id: 'b', source: '%time f()' },
    { id: 'c', source: 'print(x)\n' },
    { id: 'd', source: '' },
  ]);

  it('joins the cells in order with one blank line between them, masked', () => {
    expect(doc.text).toBe('x = 1\ndef f():\n    return x\n\npass     \n\nprint(x)\n\n\n');
    expect(doc.cellIds).toEqual(['a', 'b', 'c', 'd']);
    expect(doc.cellStart('c')).toBe(6);
  });

  it('maps positions both ways', () => {
    expect(doc.toDocument({ cellId: 'c', line: 0, character: 6 })).toEqual({ line: 6, character: 6 });
    expect(doc.toCell({ line: 6, character: 6 })).toEqual({ cellId: 'c', line: 0, character: 6 });
    expect(doc.toCell({ line: 2, character: 11 })).toEqual({ cellId: 'a', line: 2, character: 11 });
    for (const cellId of doc.cellIds) {
      const pos = doc.toDocument({ cellId, line: 0, character: 0 })!;
      expect(doc.toCell(pos)).toEqual({ cellId, line: 0, character: 0 });
    }
  });

  it('clamps positions into their cell and knows no other cells', () => {
    expect(doc.toDocument({ cellId: 'a', line: 9, character: 99 })).toEqual({ line: 2, character: 12 });
    expect(doc.toDocument({ cellId: 'zz', line: 0, character: 0 })).toBeNull();
    expect(doc.toCell({ line: 3, character: 0 })).toBeNull();
    expect(doc.toCell({ line: 99, character: 0 })).toBeNull();
  });

  it('maps ranges back into one cell, cutting at the cell end', () => {
    expect(doc.rangeToCell({ start: { line: 6, character: 6 }, end: { line: 6, character: 7 } })).toEqual({
      cellId: 'c',
      range: { start: { line: 0, character: 6 }, end: { line: 0, character: 7 } },
    });
    // An unclosed bracket reported to the end of the document stays in its cell.
    expect(doc.rangeToCell({ start: { line: 1, character: 0 }, end: { line: 9, character: 0 } })).toEqual({
      cellId: 'a',
      range: { start: { line: 1, character: 0 }, end: { line: 2, character: 12 } },
    });
    // On a separator: the end of the cell before.
    expect(doc.rangeToCell({ start: { line: 3, character: 0 }, end: { line: 3, character: 0 } })).toEqual({
      cellId: 'a',
      range: { start: { line: 2, character: 12 }, end: { line: 2, character: 12 } },
    });
    expect(
      doc.rangeToDocument({ cellId: 'c', range: { start: { line: 0, character: 0 }, end: { line: 0, character: 5 } } }),
    ).toEqual({ start: { line: 6, character: 0 }, end: { line: 6, character: 5 } });
  });

  it('finds the last line with code of a cell', () => {
    expect(doc.lastCodeLine('c')).toBe(0);
    expect(doc.lastCodeLine('d')).toBeNull();
  });

  it('handles CRLF cells and an empty notebook', () => {
    const crlf = new NotebookVirtualDocument([{ id: 'w', source: 'a = 1\r\nb = a' }]);
    expect(crlf.text).toBe('a = 1\nb = a');
    expect(crlf.toCell({ line: 1, character: 4 })).toEqual({ cellId: 'w', line: 1, character: 4 });
    const empty = new NotebookVirtualDocument([]);
    expect(empty.text).toBe('');
    expect(empty.rangeToCell({ start: { line: 0, character: 0 }, end: { line: 0, character: 0 } })).toBeNull();
  });
});

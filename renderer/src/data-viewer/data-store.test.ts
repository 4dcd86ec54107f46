import { describe, expect, it } from 'vitest';
import { parseFilter, toTsv } from './data-store';

describe('the data viewer’s filters and copies', () => {
  it('reads a typed condition as the kernel’s filter', () => {
    expect(parseFilter(0, '> 10', 'number')).toEqual({ column: 0, op: 'gt', value: '10' });
    expect(parseFilter(1, '<=2.5', 'number')).toEqual({ column: 1, op: 'le', value: '2.5' });
    expect(parseFilter(0, '!= 0', 'number')).toEqual({ column: 0, op: 'ne', value: '0' });
    expect(parseFilter(0, '42', 'number')).toEqual({ column: 0, op: 'eq', value: '42' });
    expect(parseFilter(2, '42', 'string')).toEqual({ column: 2, op: 'contains', value: '42' });
    expect(parseFilter(2, 'Oslo', 'string')).toEqual({ column: 2, op: 'contains', value: 'Oslo' });
    expect(parseFilter(2, 'empty', 'string')).toEqual({ column: 2, op: 'missing', value: '' });
    expect(parseFilter(2, 'not empty', 'number')).toEqual({ column: 2, op: 'present', value: '' });
    expect(parseFilter(2, '   ', 'string')).toBeNull();
  });

  it('copies rows as TSV with a header line; tabs and newlines inside a cell become spaces, missing is empty', () => {
    expect(
      toTsv(
        ['city', 'temp'],
        [
          ['Pune', 31],
          ['a\tb\nc', null],
        ],
      ),
    ).toBe('city\ttemp\nPune\t31\na b c\t');
  });
});

import { describe, expect, it } from 'vitest';
import { completionName, itemsBesidesKernel } from './merge-completions';

const label = (item: { label: string }) => item.label;

describe('merging the kernel completions with the language server', () => {
  it('compares by the name put in the code', () => {
    expect(completionName('os.path.join')).toBe('join');
    expect(completionName('join(')).toBe('join');
    expect(completionName('x=')).toBe('x');
    expect(completionName('%time')).toBe('time');
  });

  it('keeps the kernel item where both name the same thing, and adds what only the server knows', () => {
    const statics = [{ label: 'join' }, { label: 'joinpath' }, { label: 'basename' }, { label: 'basename' }];
    expect(itemsBesidesKernel(['os.path.join', 'basename'], statics, label)).toEqual([{ label: 'joinpath' }]);
  });

  it('is the static list alone when no kernel answered', () => {
    const statics = [{ label: 'join' }, { label: 'joinpath' }];
    expect(itemsBesidesKernel([], statics, label)).toEqual(statics);
  });
});

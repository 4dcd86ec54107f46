import { describe, expect, it } from 'vitest';
import { estimatedHeight } from './DeferredOutputs';

describe('estimatedHeight', () => {
  it('counts text lines up to what a long text shows, and a fixed height per image', () => {
    const stream = { output_type: 'stream', name: 'stdout', text: 'a\nb\nc\n' };
    const long = { output_type: 'stream', name: 'stdout', text: 'x\n'.repeat(100_000) };
    const image = { output_type: 'display_data', data: { 'image/png': 'AAAA', 'text/plain': 'fig' }, metadata: {} };
    expect(estimatedHeight([stream])).toBe(3 * 18);
    expect(estimatedHeight([long])).toBe(501 * 18);
    expect(estimatedHeight([stream, image])).toBe(3 * 18 + 250);
  });
});

import { describe, expect, it } from 'vitest';
import { formatDuration, recordedTiming } from './cell-timing';
import { callAt, parameterRanges, signatureOf } from './inspect-text';

// What IPython 8 answers to inspect_request on `len(` (text/plain, with its colours).
const LEN =
  '\x1b[0;31mSignature:\x1b[0m \x1b[0mlen\x1b[0m\x1b[0;34m(\x1b[0m\x1b[0mobj\x1b[0m\x1b[0;34m,\x1b[0m \x1b[0;34m/\x1b[0m\x1b[0;34m)\x1b[0m\n' +
  '\x1b[0;31mDocstring:\x1b[0m Return the number of items in a container.\n' +
  '\x1b[0;31mType:\x1b[0m      builtin_function_or_method';

describe('reading the inspect page', () => {
  it('finds the signature and the docstring, colours removed', () => {
    expect(signatureOf(LEN)).toEqual({ label: 'len(obj, /)', doc: 'Return the number of items in a container.' });
    expect(
      signatureOf('Init signature: dict(self, /, *args, **kwargs)\nDocstring:\ndict() -> new empty dictionary\n'),
    ).toMatchObject({ label: 'dict(self, /, *args, **kwargs)', doc: 'dict() -> new empty dictionary' });
    expect(signatureOf('Type: int\nString form: 1')).toBeNull();
  });

  it('splits parameters at top-level commas only', () => {
    const label = 'f(a, b=(1, 2), *c, d={"x": [1, 2]})';
    expect(parameterRanges(label).map(([s, e]) => label.slice(s, e))).toEqual([
      'a',
      'b=(1, 2)',
      '*c',
      'd={"x": [1, 2]}',
    ]);
    expect(parameterRanges('g()')).toEqual([]);
  });
});

describe('the call at the cursor', () => {
  it('finds the callee and the argument the cursor is at', () => {
    expect(callAt('len(', 4)).toEqual({ nameEnd: 3, argument: 0 });
    expect(callAt('f(a, (1, 2), ', 13)).toEqual({ nameEnd: 1, argument: 2 });
    expect(callAt('f(g(x), ', 8)).toEqual({ nameEnd: 1, argument: 1 });
    expect(callAt('print("a, (b", ', 15)).toEqual({ nameEnd: 5, argument: 1 });
  });

  it('is in no call outside parentheses, after a bare bracket or a tuple', () => {
    expect(callAt('x = 1', 5)).toBeNull();
    expect(callAt('x = [1, ', 8)).toBeNull();
    expect(callAt('x = (1, ', 8)).toBeNull();
    expect(callAt('f(1)\n', 5)).toBeNull();
  });
});

describe('cell timing', () => {
  it('formats durations as a person reads them', () => {
    expect(formatDuration(340.4)).toBe('340 ms');
    expect(formatDuration(1_300)).toBe('1.3 s');
    expect(formatDuration(125_000)).toBe('2 min 5 s');
    expect(formatDuration(3_725_000)).toBe('1 h 2 min');
  });

  it('reads a run JupyterLab recorded in metadata.execution', () => {
    const execution = {
      'iopub.execute_input': '2026-12-02T14:02:00.000Z',
      'iopub.status.busy': '2026-12-02T14:01:59.990Z',
      'iopub.status.idle': '2026-12-02T14:02:01.310Z',
      'shell.execute_reply': '2026-12-02T14:02:01.300Z',
    };
    expect(recordedTiming({ execution })).toMatchObject({ durationMs: 1300 });
    expect(recordedTiming({})).toBeNull();
    expect(recordedTiming({ execution: { 'shell.execute_reply': 'soon' } })).toBeNull();
  });
});

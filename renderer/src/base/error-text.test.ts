import { describe, expect, it } from 'vitest';
import { KilnError } from '../../../shared/errors';
import { errorText, shownError } from './error-text';

describe('errorText', () => {
  it('shows a service error by its message and keeps its code and details', () => {
    const err = new KilnError('E_TOO_LARGE', 'big.csv is 90 MB', { size: 90, limit: 50, confirmable: true });
    expect(shownError(err)).toEqual({
      code: 'E_TOO_LARGE',
      message: 'big.csv is 90 MB',
      details: { size: 90, limit: 50, confirmable: true },
    });
    expect(errorText(err, 'Could not open big.csv')).toBe('Could not open big.csv: big.csv is 90 MB');
  });

  it('says what happened to Kiln for a shutdown or a lost connection, whichever layer worded it', () => {
    expect(errorText(new KilnError('E_SHUTTING_DOWN', 'The Jupyter server manager was shut down'))).toBe(
      'Kiln is shutting down; nothing more runs in this window.',
    );
    expect(errorText(new KilnError('E_DISCONNECTED', 'socket closed'), 'Could not save a.txt')).toBe(
      'Could not save a.txt: Lost the connection to Kiln; reload the window to reconnect.',
    );
  });

  it('says what to do with a notebook git left in conflict', () => {
    const err = new KilnError('E_NOTEBOOK_CONFLICT', 'run.ipynb has unresolved git merge conflicts', {
      path: 'run.ipynb',
    });
    expect(shownError(err)).toEqual({
      code: 'E_NOTEBOOK_CONFLICT',
      message:
        'run.ipynb has unresolved git merge conflicts. Resolve its conflicts cell by cell (ours, theirs or both), then save it.',
      details: { path: 'run.ipynb' },
    });
  });

  it('anything else thrown is an internal error with its text', () => {
    expect(shownError(new TypeError('x is undefined'))).toEqual({ code: 'E_INTERNAL', message: 'x is undefined' });
    expect(shownError('plain')).toEqual({ code: 'E_INTERNAL', message: 'plain' });
  });
});

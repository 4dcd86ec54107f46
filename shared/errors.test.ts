import { describe, expect, it } from 'vitest';
import { ERROR_CODES, ERRORS, errorTitle, fromWireError, isKilnError, KilnError, WireErrorSchema } from './errors';

describe('error codes', () => {
  it('each code has a short title for the UI', () => {
    for (const code of ERROR_CODES) expect(errorTitle(code).length).toBeGreaterThan(0);
    expect(errorTitle('E_SHUTTING_DOWN')).toBe('Kiln is shutting down');
    expect(errorTitle('E_DISCONNECTED')).toBe('Lost the connection to Kiln');
  });

  it('the wire refuses a code that is not defined', () => {
    expect(WireErrorSchema.safeParse({ code: 'E_SHUTDOWN', message: 'x' }).success).toBe(false);
    expect(WireErrorSchema.safeParse({ code: 'E_DISCONNECTED', message: 'x' }).success).toBe(true);
  });
});

describe('crossing the boundary', () => {
  it('keeps code, message and details that fit their code', () => {
    const sent = new KilnError('E_CHANGED_ON_DISK', 'a.txt changed on disk', {
      path: 'a.txt',
      diskHash: null,
      baselineHash: 'abc',
    });
    const received = fromWireError(WireErrorSchema.parse(JSON.parse(JSON.stringify(sent.toWire()))));
    expect(received).toBeInstanceOf(KilnError);
    expect(received.toWire()).toEqual({
      code: 'E_CHANGED_ON_DISK',
      message: 'a.txt changed on disk',
      details: { path: 'a.txt', diskHash: null, baselineHash: 'abc' },
    });
  });

  it('drops details that do not fit their code, keeping the code and message', () => {
    const received = fromWireError({ code: 'E_TOO_LARGE', message: 'big', details: { size: 'huge' } });
    expect(received.code).toBe('E_TOO_LARGE');
    expect(received.message).toBe('big');
    expect(received.details).toBeUndefined();
    expect(fromWireError({ code: 'E_BUSY', message: 'busy', details: { anything: 1 } }).details).toBeUndefined();
  });

  it('leaves details out of the wire shape when there are none', () => {
    expect(new KilnError('E_BUSY', 'Already running').toWire()).toEqual({ code: 'E_BUSY', message: 'Already running' });
  });
});

describe('isKilnError', () => {
  it('matches only the given code, and types its details', () => {
    const err: unknown = new KilnError('E_TOO_LARGE', 'big', { size: 300_000, limit: 262_144, confirmable: true });
    expect(isKilnError(err, 'E_BUSY')).toBe(false);
    expect(isKilnError(new Error('plain'), 'E_TOO_LARGE')).toBe(false);
    if (!isKilnError(err, 'E_TOO_LARGE')) throw new Error('expected E_TOO_LARGE');
    expect(err.details?.confirmable).toBe(true);
    expect(ERRORS.E_TOO_LARGE.details.safeParse(err.details).success).toBe(true);
  });
});

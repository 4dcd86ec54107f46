import { describe, expect, it } from 'vitest';
import { parseUploadRequest, uploadStatusOf } from './upload-request';

const url = (query: string) => new URL(`http://127.0.0.1:1/upload${query}`);

describe('parseUploadRequest', () => {
  it('reads the target and the conflict rule of a PUT', () => {
    expect(parseUploadRequest('PUT', url('?path=a%2Fb%20c.txt'))).toEqual({
      ok: true,
      path: 'a/b c.txt',
      conflict: 'reject',
    });
    expect(parseUploadRequest('PUT', url('?path=x&conflict=overwrite'))).toMatchObject({ conflict: 'overwrite' });
  });

  it('refuses other methods, a missing path and an unknown conflict rule (the guard judges the path itself)', () => {
    expect(parseUploadRequest('POST', url('?path=x')).ok).toBe(false);
    expect(parseUploadRequest('PUT', url('')).ok).toBe(false);
    expect(parseUploadRequest('PUT', url(`?path=${'a'.repeat(5000)}`)).ok).toBe(false);
    expect(parseUploadRequest('PUT', url('?path=x&conflict=merge')).ok).toBe(false);
    expect(parseUploadRequest('PUT', url('?path=../x'))).toMatchObject({ ok: true, path: '../x' });
  });
});

describe('uploadStatusOf', () => {
  it('answers an escape 403, a clash 409, a bad request 400 and anything unforeseen 500', () => {
    expect(uploadStatusOf('E_OUTSIDE_WORKSPACE')).toBe(403);
    expect(uploadStatusOf('E_EXISTS')).toBe(409);
    expect(uploadStatusOf('E_BAD_REQUEST')).toBe(400);
    expect(uploadStatusOf('E_INTERNAL')).toBe(500);
  });
});

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Envelope, UploadResult } from '../../shared/contract';
import { KilnError } from '../../shared/errors';
import { toWireError } from '../errors';
import type { Workspace } from '../workspace';
import { parseUploadRequest, uploadStatusOf } from './upload-request';

/**
 * One file of a web-host upload: the request body streams into the workspace's `receive` (a private temp file,
 * renamed into place when whole). The host holds one socket buffer at a time whatever the size: the body is read
 * only as fast as the disk takes it. A client that goes away mid-body aborts the write, and the temp goes with it.
 * The caller has already checked the token, Host and Origin.
 */
export async function receiveUpload(req: IncomingMessage, res: ServerResponse, url: URL, ws: Workspace): Promise<void> {
  const parsed = parseUploadRequest(req.method, url);
  if (!parsed.ok) {
    req.resume();
    return answer(res, 400, { ok: false, error: { code: 'E_BAD_REQUEST', message: parsed.message } });
  }
  const gone = new AbortController();
  // 'close' before the whole body arrived: the browser cancelled (XHR abort) or the connection broke.
  req.on('close', () => {
    if (!req.complete) gone.abort(new KilnError('E_CANCELLED', 'The upload was cancelled'));
  });
  try {
    // Not hashed: an operator's upload is never an Agent turn's write, whose undo is all the hash serves.
    const value = await ws.receive(parsed.path, req, {
      onConflict: parsed.conflict,
      signal: gone.signal,
      hashed: false,
    });
    answer(res, 200, { ok: true, value });
  } catch (err) {
    const error = gone.signal.aborted ? toWireError(gone.signal.reason) : toWireError(err);
    // The rest of a refused body is read and dropped, so the client hears the answer instead of a reset.
    if (!req.complete && !req.destroyed) req.resume();
    answer(res, uploadStatusOf(error.code), { ok: false, error });
  }
}

function answer(res: ServerResponse, status: number, body: Envelope<UploadResult>): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));
}

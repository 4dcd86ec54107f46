import { KilnError } from '../../shared/errors';
import type { ExportFormat } from '../../shared/contract';
import type { JupyterConnection } from '../kernel';

/** What Debian calls nbconvert, for the error that says what to install. */
const NBCONVERT_HINT = 'Install nbconvert where Jupyter runs (Debian: apt-get install python3-nbconvert).';

/** nbconvert's exporter for each export Kiln offers. */
const EXPORTERS: Record<ExportFormat, string> = { html: 'html', script: 'script' };

export interface ConvertRequest {
  notebook: string;
  name: string;
  format: ExportFormat;
}

function scriptExtension(notebook: unknown): string {
  const ext = (notebook as { metadata?: { language_info?: { file_extension?: unknown } } }).metadata?.language_info
    ?.file_extension;
  return typeof ext === 'string' && /^\.[\w.+-]{1,16}$/.test(ext) ? ext : '.py';
}

/**
 * Converts a notebook with the Jupyter server's nbconvert: `GET /api/nbconvert` says which exporters the
 * server has (so a server without nbconvert gets a clear error, not a 500), then `POST /nbconvert/<format>`
 * converts the notebook sent, so it works alike on the embedded and on a remote server.
 */
export async function convertNotebook(
  connection: Pick<JupyterConnection, 'baseUrl' | 'token'>,
  request: ConvertRequest,
  timeoutMs = 120_000,
): Promise<{ text: string; extension: string }> {
  let content: unknown;
  try {
    content = JSON.parse(request.notebook);
  } catch {
    throw new KilnError('E_INVALID_NOTEBOOK', 'The notebook to export is not valid JSON', {
      reason: 'not valid JSON',
    });
  }
  const headers = { Authorization: `token ${connection.token}` };
  const exporter = EXPORTERS[request.format];
  const listing = await fetch(`${connection.baseUrl}api/nbconvert`, {
    headers,
    signal: AbortSignal.timeout(timeoutMs),
  }).catch((error: unknown) => {
    throw new KilnError('E_NO_JUPYTER', `The Jupyter server did not answer: ${String(error)}`);
  });
  const formats = listing.ok ? ((await listing.json()) as Record<string, unknown>) : null;
  if (!formats || !(exporter in formats)) {
    throw new KilnError(
      'E_NO_JUPYTER',
      `The Jupyter server cannot export to ${request.format} (nbconvert ${formats ? `lacks "${exporter}"` : 'is missing'}). ${NBCONVERT_HINT}`,
    );
  }
  const reply = await fetch(`${connection.baseUrl}nbconvert/${exporter}`, {
    method: 'POST',
    headers: { ...headers, 'Content-Type': 'application/json' },
    body: JSON.stringify({ content, name: request.name }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await reply.text();
  if (!reply.ok) {
    // Tornado's error page: its <title> or first line names what nbconvert said.
    const reason = /<title>([^<]*)<\/title>/i.exec(text)?.[1] ?? text.split('\n')[0]?.slice(0, 300);
    throw new KilnError('E_INTERNAL', `nbconvert failed (${reply.status}): ${reason ?? reply.statusText}`);
  }
  return { text, extension: request.format === 'html' ? '.html' : scriptExtension(content) };
}

import { formatBytes } from '../ui';

/** The words of an upload's progress and outcome, kept apart so they are tested as the operator reads them. */

export interface TransferCounts {
  filesDone: number;
  filesTotal: number;
  bytesDone: number;
  bytesTotal: number;
}

/** "3 of 12 files · 40.2 MB of 1.2 GB" (bytes only when known: a copy by path counts files). */
export function progressText(counts: TransferCounts): string {
  const files = `${counts.filesDone.toLocaleString()} of ${counts.filesTotal.toLocaleString()} file${counts.filesTotal === 1 ? '' : 's'}`;
  return counts.bytesTotal > 0
    ? `${files} · ${formatBytes(counts.bytesDone)} of ${formatBytes(counts.bytesTotal)}`
    : files;
}

/** What a cancel did: whole files stay, the partial one is gone; said plainly, since the operator chose it. */
export function cancelledText(kept: number, partial: string | null): string {
  const keptText =
    kept === 0 ? 'No file was written' : `${kept.toLocaleString()} whole file${kept === 1 ? ' was' : 's were'} kept`;
  return partial
    ? `Upload cancelled. ${keptText}; the partly written "${partial}" was removed.`
    : `Upload cancelled. ${keptText}.`;
}

/** The platform's move modifier, as file managers use it: Shift on Linux and Windows, Cmd on macOS. */
export function wantsMove(event: { shiftKey: boolean; metaKey: boolean }, isMac: boolean): boolean {
  return isMac ? event.metaKey : event.shiftKey;
}

import type { KilnBridge } from '../../../shared/contract';
import type { DesktopApi } from '../../../shared/desktop';
import { ticketedDownloadUrl } from './download-tickets';

declare global {
  interface Window {
    kilnDesktop?: DesktopApi;
  }
}

/** The Electron window's desktop actions (native drag out, Reveal, Open with System Application); null in the web host. */
export function desktopApi(): DesktopApi | null {
  return window.kilnDesktop ?? null;
}

/** Starts the browser's download of a workspace file (a folder comes as a zip) from the web host, by a ticket. */
export async function startDownload(bridge: KilnBridge, rel: string): Promise<void> {
  const href = await ticketedDownloadUrl(bridge, rel);
  const link = document.createElement('a');
  link.href = href;
  // The host's Content-Disposition names the file; `download` keeps the page where it is either way.
  link.download = '';
  link.rel = 'noopener';
  document.body.appendChild(link);
  link.click();
  link.remove();
}

/** A small label as the drag's image (the row's own picture would carry the whole tree's width). */
export function setDragLabel(data: DataTransfer, text: string): void {
  const label = document.createElement('div');
  label.className = 'drag-ghost';
  label.textContent = text;
  Object.assign(label.style, { position: 'fixed', top: '-200px', left: '0px' });
  document.body.appendChild(label);
  data.setDragImage(label, -14, -10);
  requestAnimationFrame(() => label.remove());
}

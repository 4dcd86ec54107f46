import type { KilnBridge } from '../../../shared/contract';
import type { Toasts } from './toast';
import { errorText } from '../base';

/** Writes text to the system clipboard, with a fallback for contexts without the async API. */
export async function copyText(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    const area = document.createElement('textarea');
    area.value = text;
    document.body.appendChild(area);
    area.select();
    document.execCommand('copy');
    area.remove();
  }
}

/** Copy Path / Copy Absolute Path for a workspace entry ('' is the root), confirmed or reported in a toast. */
export async function copyWorkspacePath(
  bridge: KilnBridge,
  toasts: Toasts,
  path: string,
  absolute: boolean,
): Promise<void> {
  try {
    const text = absolute ? (await bridge.request('workspace.absolutePath', { path })).path : path || '.';
    await copyText(text);
    toasts.show({ kind: 'info', message: `Copied ${absolute ? 'absolute path' : 'path'}: ${text}`, timeoutMs: 2500 });
  } catch (err) {
    toasts.error(errorText(err));
  }
}

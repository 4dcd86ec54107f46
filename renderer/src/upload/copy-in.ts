import { useMemo } from 'react';
import { useAsk, useToasts } from '../ui';
import { nameOf } from '../../../shared/paths';
import { readDrop, type IncomingItem } from './incoming';
import { useUploads } from './upload-store';

/** Copies files from outside the workspace in, once the operator agrees: for drops on the editor and composers. */
export interface CopyIn {
  /** Takes a drop's files; call it in the drop handler itself (the DataTransfer empties when the handler returns). */
  read(data: DataTransfer): Promise<IncomingItem[]>;
  /** Asks where (the folder `here` when there is one, else the root), copies, and resolves the paths written. */
  offer(items: IncomingItem[], here: string): Promise<string[]>;
}

export function useCopyIn(): CopyIn {
  const ask = useAsk();
  const toasts = useToasts();
  const uploads = useUploads();
  return useMemo(
    () => ({
      read: readDrop,
      offer: async (items, here) => {
        if (!items.length) return [];
        const answer = await ask({
          title:
            items.length === 1
              ? `Copy "${items[0].name}" into the workspace?`
              : `Copy ${items.length} items into the workspace?`,
          message: `${describe(items)} ${items.length === 1 ? 'is' : 'are'} not in the workspace. Kiln works on files in the workspace: copy ${items.length === 1 ? 'it' : 'them'} in first?`,
          buttons: [
            ...(here ? [{ label: `Copy to "${nameOf(here)}"`, value: 'here' as const, primary: true }] : []),
            { label: 'Copy to the workspace root', value: 'root' as const, primary: !here },
            { label: 'Cancel', value: 'cancel' as const },
          ],
          cancelValue: 'cancel',
        });
        if (answer === 'cancel') return [];
        return uploads.bringIn(items, answer === 'here' ? here : '', { ask, toasts });
      },
    }),
    [ask, toasts, uploads],
  );
}

function describe(items: IncomingItem[]): string {
  const names = items.slice(0, 3).map((item) => `"${item.name}"`);
  return items.length > 3 ? `${names.join(', ')} and ${items.length - 3} more` : names.join(', ');
}

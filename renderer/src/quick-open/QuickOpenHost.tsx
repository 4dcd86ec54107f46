import { useRef } from 'react';
import { useStore } from '../base';
import { useCommands } from '../commands';
import { QuickOpen } from './QuickOpen';
import { useQuickOpenStore } from './quick-open-store';

/** Ctrl/Cmd+P opens Quick Open; focus goes back where it was when it closes. */
export function QuickOpenHost({ onOpen }: { onOpen: (path: string) => void }) {
  const store = useQuickOpenStore();
  const open = useStore(store, (s) => s.open);
  const returnTo = useRef<HTMLElement | null>(null);
  useCommands([
    {
      id: 'workbench.quickOpen',
      title: 'Go to File…',
      category: 'File',
      keys: 'Mod+P',
      run: () => {
        returnTo.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
        store.show();
      },
    },
  ]);
  if (!open) return null;
  const close = () => {
    store.hide();
    returnTo.current?.focus();
  };
  return <QuickOpen onOpen={onOpen} onClose={close} />;
}

import { useEffect, useMemo, useState } from 'react';
import { useCommands } from '../commands';
import { useOpenFilesStore } from '../editor';
import { QuickOpen } from './QuickOpen';
import { RecentFiles } from './recent-files';

/** Ctrl/Cmd+P opens Quick Open; the recent-files history lives here for the window's life. */
export function QuickOpenHost({ onOpen }: { onOpen: (path: string) => void }) {
  const openFiles = useOpenFilesStore();
  const recent = useMemo(() => new RecentFiles(openFiles), [openFiles]);
  useEffect(() => () => recent.dispose(), [recent]);
  const [open, setOpen] = useState<{ recent: string[]; returnTo: HTMLElement | null } | null>(null);
  useCommands([
    {
      id: 'workbench.quickOpen',
      title: 'Go to File…',
      category: 'File',
      keys: 'Mod+P',
      run: () => setOpen({ recent: [...recent.list()], returnTo: document.activeElement instanceof HTMLElement ? document.activeElement : null }),
    },
  ]);
  if (!open) return null;
  const close = () => {
    setOpen(null);
    open.returnTo?.focus();
  };
  return <QuickOpen recent={open.recent} onOpen={onOpen} onClose={close} />;
}

import type { ReactNode } from 'react';
import { useBridge } from '../../base';
import { useAsk, useToasts } from '../../ui';
import { nameOf, parentOf } from '../paths';
import { carriesOsFiles, readDrop, type IncomingItem } from './incoming';
import { useUploads } from './upload-store';
import { desktopApi } from '../../drag-out';

/**
 * Files dropped from the desktop on the editor area: one inside the workspace opens (Electron knows real paths);
 * one from elsewhere is offered a copy into the open file's folder or the workspace root, then opens. In the web
 * host a browser never says where a dropped file lives, so every drop is offered as a copy.
 */
export function EditorFileDrop({
  activePath,
  onOpen,
  children,
}: {
  activePath: string | null;
  onOpen: (path: string) => void;
  children: ReactNode;
}) {
  const bridge = useBridge();
  const ask = useAsk();
  const toasts = useToasts();
  const uploads = useUploads();

  const onDragOver = (event: React.DragEvent) => {
    if (!carriesOsFiles(event.dataTransfer)) return;
    // Before Monaco: it would insert the file's URI as text.
    event.preventDefault();
    event.stopPropagation();
    event.dataTransfer.dropEffect = 'copy';
  };

  const onDrop = (event: React.DragEvent) => {
    if (!carriesOsFiles(event.dataTransfer)) return;
    event.preventDefault();
    event.stopPropagation();
    const port = desktopApi();
    const real = port ? Array.from(event.dataTransfer.files, (file) => port.pathForFile(file)) : [];
    const reading = readDrop(event.dataTransfer);
    void (async () => {
      let items = await reading;
      if (real.length && real.every(Boolean)) {
        const { root } = await bridge.request('workspace.info', {});
        const inside = real.map((abs) => workspaceRelative(abs, root));
        for (const rel of inside) if (rel !== null) onOpen(rel);
        items = items.filter((_, i) => inside[i] === null);
      }
      if (!items.length) return;
      const here = activePath ? parentOf(activePath) : '';
      const answer = await ask({
        title:
          items.length === 1
            ? `Copy "${items[0].name}" into the workspace?`
            : `Copy ${items.length} items into the workspace?`,
        message: `${describe(items)} ${items.length === 1 ? 'is' : 'are'} not in the workspace. Kiln opens files from the workspace: copy ${items.length === 1 ? 'it' : 'them'} in first?`,
        buttons: [
          ...(here ? [{ label: `Copy to "${nameOf(here)}"`, value: 'here' as const, primary: true }] : []),
          { label: 'Copy to the workspace root', value: 'root' as const, primary: !here },
          { label: 'Cancel', value: 'cancel' as const },
        ],
        cancelValue: 'cancel',
      });
      if (answer === 'cancel') return;
      const written = await uploads.bringIn(items, answer === 'here' ? here : '', { ask, toasts });
      for (const path of written) {
        const entry = await bridge.request('workspace.stat', { path }).catch(() => null);
        if (entry?.kind === 'file') onOpen(path);
      }
    })();
  };

  return (
    <div className="editor-file-drop" onDragOverCapture={onDragOver} onDropCapture={onDrop}>
      {children}
    </div>
  );
}

function describe(items: IncomingItem[]): string {
  const names = items.slice(0, 3).map((item) => `"${item.name}"`);
  return items.length > 3 ? `${names.join(', ')} and ${items.length - 3} more` : names.join(', ');
}

/** The workspace-relative POSIX path of an absolute path inside `root`, else null (either separator style). */
export function workspaceRelative(abs: string, root: string): string | null {
  const sep = root.includes('\\') && !root.includes('/') ? '\\' : '/';
  const base = root.endsWith(sep) ? root : root + sep;
  if (!abs.startsWith(base)) return null;
  const rel = abs.slice(base.length).split(sep).join('/');
  return rel && !rel.split('/').includes('..') ? rel : null;
}

import type { ReactNode } from 'react';
import { useBridge } from '../base';
import { desktopApi, workspaceRelativeOf } from '../drag-out';
import { parentOf } from '../../../shared/paths';
import { useCopyIn } from './copy-in';
import { carriesOsFiles } from './incoming';

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
  const copyIn = useCopyIn();

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
    const reading = copyIn.read(event.dataTransfer);
    void (async () => {
      let items = await reading;
      if (real.length && real.every(Boolean)) {
        const { root } = await bridge.request('workspace.info', {});
        const inside = real.map((abs) => workspaceRelativeOf(root, abs) || null);
        for (const rel of inside) if (rel !== null) onOpen(rel);
        items = items.filter((_, i) => inside[i] === null);
      }
      const written = await copyIn.offer(items, activePath ? parentOf(activePath) : '');
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

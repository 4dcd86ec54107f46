import { useMemo, useRef, useState } from 'react';
import { useBridge } from '../base';
import { useToasts } from '../ui';
import { pathsAsText, useTreeDragInFlight, workspaceRelativeOf } from './drag-data';
import { desktopApi } from './desktop';

/** What an OS drop is made of, once its files are placed against the workspace. */
export interface PlacedOsFiles {
  inside: string[];
  outside: string[];
}

/**
 * Sorts files dropped from the OS into workspace paths and names outside it. Only Electron knows a dropped
 * file's real path; in the browser every OS file is outside (it has to be uploaded first).
 */
export function placeOsFiles(files: ReadonlyArray<{ name: string; path: string }>, root: string | null): PlacedOsFiles {
  const placed: PlacedOsFiles = { inside: [], outside: [] };
  for (const file of files) {
    const rel = file.path && root ? workspaceRelativeOf(root, file.path) : null;
    if (rel !== null) placed.inside.push(rel);
    else placed.outside.push(file.name);
  }
  return placed;
}

/** Brings files from outside the workspace in once the operator agrees (the tree's upload), resolving their paths. */
export interface CopyInPort<Item extends { name: string }> {
  /** Called in the drop handler itself: the DataTransfer empties when it returns. */
  read(data: DataTransfer): Promise<Item[]>;
  offer(items: Item[], here: string): Promise<string[]>;
}

function isOsFileDrag(data: DataTransfer): boolean {
  return data.types.includes('Files');
}

/**
 * Drop handlers that turn tree rows (or files from the OS that are in the workspace) into their
 * workspace-relative paths, one per line, for a message box: never their contents. A file from outside the
 * workspace is offered a copy into the workspace (`copyIn`), and its new path goes in once it is there.
 */
export function usePathDrop<Item extends { name: string }>(
  insert: (text: string) => void,
  enabled = true,
  copyIn?: CopyInPort<Item>,
) {
  const bridge = useBridge();
  const treeDrag = useTreeDragInFlight.of(bridge);
  const toasts = useToasts();
  const [over, setOver] = useState(false);
  const latest = useRef({ insert, enabled, copyIn });
  latest.current = { insert, enabled, copyIn };
  const root = useRef<Promise<string | null> | null>(null);

  const handlers = useMemo(() => {
    const accepts = (data: DataTransfer | null): data is DataTransfer =>
      Boolean(data) && latest.current.enabled && (treeDrag.isTreeDrag(data!) || isOsFileDrag(data!));
    const workspaceRoot = () =>
      (root.current ??= bridge.request('workspace.info', {}).then(
        (info) => info.root,
        () => null,
      ));
    const accept = (event: React.DragEvent) => {
      if (!accepts(event.dataTransfer)) return;
      event.preventDefault();
      event.stopPropagation();
      event.dataTransfer.dropEffect = 'copy';
      setOver(true);
    };
    return {
      onDragOver: accept,
      // Entering must be accepted too, or the drop target stays what was under the pointer before.
      onDragEnter: accept,
      onDragLeave: (event: React.DragEvent) => {
        if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setOver(false);
      },
      onDrop: (event: React.DragEvent) => {
        setOver(false);
        if (!accepts(event.dataTransfer)) return;
        event.preventDefault();
        event.stopPropagation();
        const paths = treeDrag.pathsOf(event.dataTransfer);
        if (paths) return latest.current.insert(pathsAsText(paths));
        const desktop = desktopApi();
        const files = [...event.dataTransfer.files].map((file) => ({
          name: file.name,
          path: desktop?.pathForFile(file) ?? '',
        }));
        const copyIn = latest.current.copyIn;
        const reading = copyIn?.read(event.dataTransfer);
        void workspaceRoot().then(async (rootPath) => {
          const { inside, outside } = placeOsFiles(files, rootPath);
          if (inside.length) latest.current.insert(pathsAsText(inside));
          if (!outside.length) return;
          if (copyIn && reading) {
            const items = (await reading).filter((item) => outside.includes(item.name));
            const written = await copyIn.offer(items, '');
            if (written.length) latest.current.insert(pathsAsText(written));
            return;
          }
          toasts.show({
            kind: 'info',
            message:
              `${outside.length === 1 ? `"${outside[0]}" is` : `${outside.length} files are`} not in the workspace, ` +
              `so no path was inserted. Copy ${outside.length === 1 ? 'it' : 'them'} in first: drop on the Explorer` +
              `${desktop ? '' : ' (or its Upload Files…)'}, then drag from the tree here.`,
            timeoutMs: 8000,
          });
        });
      },
    };
  }, [bridge, toasts, treeDrag]);
  return { over, handlers };
}

import { useState } from 'react';
import { errorText, useBridge } from '../../base';
import { useCommands } from '../../commands';
import { desktopApi, startDownload } from '../../drag-out';
import { ContextMenu, useAsk, useToasts } from '../../ui';
import type { NotebookSession } from '../notebook-session';
import { exportNotebook, type ExportKind } from './export-notebook';
import { exportPdf } from './print';
import './print.css';

/** The toolbar's Export menu and the palette's "Export as HTML / Python script / PDF" for this notebook. */
export function ExportMenu({ session }: { session: NotebookSession }) {
  const bridge = useBridge();
  const ask = useAsk();
  const toasts = useToasts();
  const [menu, setMenu] = useState<{ x: number; y: number } | null>(null);

  const exportAs = async (kind: ExportKind) => {
    const label = kind === 'html' ? 'HTML' : 'a script';
    const progress = toasts.show({ kind: 'progress', message: `Exporting ${session.path} as ${label}…` });
    try {
      const written = await exportNotebook(session, kind, { bridge, ask });
      toasts.close(progress);
      if (!written) return;
      // In the web host the file is on the host's disk: offer it to the browser too.
      const download = desktopApi()
        ? []
        : [
            {
              label: 'Download',
              run: () =>
                void startDownload(bridge, written).catch((err) =>
                  toasts.error(`Could not download ${written}: ${errorText(err)}`),
                ),
            },
          ];
      toasts.show({
        kind: 'info',
        message: `Exported to ${written}`,
        timeoutMs: download.length ? 15000 : 6000,
        actions: download,
      });
    } catch (err) {
      toasts.close(progress);
      toasts.error(`Could not export ${session.path}: ${errorText(err)}`);
    }
  };
  const exportAsPdf = async () => {
    try {
      const written = await exportPdf(bridge, session.path);
      if (written) toasts.show({ kind: 'info', message: `Exported to ${written}`, timeoutMs: 6000 });
    } catch (err) {
      toasts.error(`Could not export ${session.path} as PDF: ${errorText(err)}`);
    }
  };
  const items = [
    { id: 'notebook.exportHtml', title: 'Export as HTML', run: () => exportAs('html') },
    { id: 'notebook.exportScript', title: 'Export as Python script', run: () => exportAs('script') },
    { id: 'notebook.exportPdf', title: 'Export as PDF', run: () => exportAsPdf() },
  ];
  useCommands(items.map((item) => ({ ...item, category: 'Notebook' })));

  return (
    <>
      <button
        type="button"
        className="nb-tool nb-tool-text"
        aria-label="Export"
        aria-haspopup="menu"
        title="Export as HTML, Python script or PDF"
        onClick={(event) => {
          const box = event.currentTarget.getBoundingClientRect();
          setMenu({ x: box.left, y: box.bottom + 2 });
        }}
      >
        <span>Export</span>
      </button>
      {menu && (
        <ContextMenu
          x={menu.x}
          y={menu.y}
          label="Export"
          items={items.map((item) => ({ label: item.title, onSelect: () => void item.run() }))}
          onClose={() => setMenu(null)}
        />
      )}
    </>
  );
}

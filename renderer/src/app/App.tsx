import { useEffect, useState } from 'react';
import { CodeViewer } from '../editor/CodeViewer';
import { FileTree } from '../tree/FileTree';
import { useBridge } from './bridge-context';

/** The window: file tree on the left, the editor in the centre, the agent rail on the right. */
export function App() {
  const bridge = useBridge();
  const [workspaceName, setWorkspaceName] = useState('');
  const [openPath, setOpenPath] = useState<string | null>(null);

  useEffect(() => {
    void bridge.request('workspace.info', {}).then((info) => {
      setWorkspaceName(info.name);
      document.title = `Kiln — ${info.name}`;
    });
  }, [bridge]);

  return (
    <div className="shell">
      <aside className="left-rail" aria-label="Explorer">
        <header className="rail-header">{workspaceName}</header>
        <FileTree onOpen={setOpenPath} selected={openPath} />
      </aside>
      <main className="centre">
        {openPath ? <CodeViewer path={openPath} /> : <div className="notice">Open a file from the tree.</div>}
      </main>
      <aside className="right-rail" aria-label="Assistant" />
    </div>
  );
}

import '@xterm/xterm/css/xterm.css';
import { useEffect, useLayoutEffect, useRef } from 'react';
import { errorText, useStore } from '../base';
import { useCommands } from '../commands';
import { PlusIcon, XIcon, tabAnchor, useToasts } from '../ui';
import { useTerminalStore, type TerminalTab } from './terminal-store';
import './terminal.css';

/** The terminal panel under the editor: tabs of shells in the workspace root, toggled with Ctrl+`. */
export function TerminalPanel() {
  const toasts = useToasts();
  const store = useTerminalStore();
  const { tabs, active, open } = useStore(store);
  const fail = (err: unknown): void => {
    toasts.error(errorText(err, 'Could not start a terminal'));
  };

  useCommands([
    {
      id: 'terminal.toggle',
      title: 'Toggle Terminal',
      category: 'View',
      keys: 'Ctrl+`',
      run: () => store.toggle().catch(fail),
    },
    {
      id: 'terminal.new',
      title: 'Create New Terminal',
      category: 'Terminal',
      keys: 'Ctrl+Shift+`',
      run: () => store.create().then(() => undefined, fail),
    },
    {
      id: 'terminal.kill',
      title: 'Kill the Active Terminal',
      category: 'Terminal',
      when: () => Boolean(store.getState().active),
      run: () => store.kill(store.getState().active!),
    },
  ]);

  return (
    <section className="terminal-panel" role="region" aria-label="Terminal" hidden={!open}>
      <div className="terminal-bar">
        <div className="terminal-tabs">
          <div className="terminal-tab-list" role="tablist" aria-label="Terminals">
            {tabs.map((tab) => (
              <button
                key={tab.id}
                type="button"
                role="tab"
                className={`terminal-tab${tab.id === active ? ' active' : ''}`}
                style={tabAnchor(`terminal-tab-${tab.id}`)}
                aria-selected={tab.id === active}
                aria-controls={`terminal-${tab.id}`}
                onClick={() => store.activate(tab.id)}
              >
                {tab.title}
              </button>
            ))}
          </div>
          {/* A tablist holds only tabs: each Kill button sits after it and is drawn over its tab's end (CSS anchor positioning). */}
          {tabs.map((tab) => (
            <button
              key={tab.id}
              type="button"
              className="icon-btn terminal-kill"
              style={tabAnchor(`terminal-tab-${tab.id}`)}
              aria-label={`Kill ${tab.title}`}
              title="Kill Terminal"
              onClick={() => void store.kill(tab.id)}
            >
              <XIcon size={11} />
            </button>
          ))}
        </div>
        <button
          type="button"
          className="icon-btn"
          aria-label="New Terminal"
          title="New Terminal (Ctrl+Shift+`)"
          onClick={() => void store.create().catch(fail)}
        >
          <PlusIcon />
        </button>
        <button
          type="button"
          className="icon-btn"
          aria-label="Hide Terminal"
          title="Hide (Ctrl+`)"
          onClick={() => void store.toggle()}
        >
          <XIcon />
        </button>
      </div>
      {tabs.map((tab) => (
        <TerminalView key={tab.id} tab={tab} visible={open && tab.id === active} />
      ))}
    </section>
  );
}

/** One xterm, opened once in its own element and kept (hidden) while another tab shows. */
function TerminalView({ tab, visible }: { tab: TerminalTab; visible: boolean }) {
  const host = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    const el = host.current!;
    if (!tab.xterm.element) tab.xterm.open(el);
    const fit = () => {
      if (el.offsetWidth > 0 && el.offsetHeight > 0) tab.fit.fit();
    };
    const observer = new ResizeObserver(fit);
    observer.observe(el);
    return () => observer.disconnect();
  }, [tab]);
  useEffect(() => {
    if (!visible) return;
    if (host.current && host.current.offsetWidth > 0) tab.fit.fit();
    tab.xterm.focus();
  }, [visible, tab]);
  return (
    <div
      ref={host}
      id={`terminal-${tab.id}`}
      role="tabpanel"
      aria-label={tab.title}
      className="terminal-view"
      hidden={!visible}
    />
  );
}

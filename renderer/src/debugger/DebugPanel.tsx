import { useEffect, useState, type ReactNode } from 'react';
import type { DebugCommand } from '../../../shared/contract';
import { useStore } from '../base';
import { useCommands } from '../commands';
import { useOpenFilesStore, useReveals } from '../editor';
import { Icon, XIcon } from '../ui';
import { isNotebook, useDebuggerStore } from './debugger-store';
import './debugger.css';

const CONTROLS: {
  command: DebugCommand;
  label: string;
  icon: string;
  keys: string;
  when: 'paused' | 'running' | 'any';
}[] = [
  { command: 'continue', label: 'Continue', icon: 'debug-continue', keys: 'F5', when: 'paused' },
  { command: 'next', label: 'Step Over', icon: 'debug-step-over', keys: 'F10', when: 'paused' },
  { command: 'stepIn', label: 'Step Into', icon: 'debug-step-into', keys: 'F11', when: 'paused' },
  { command: 'stepOut', label: 'Step Out', icon: 'debug-step-out', keys: 'Shift+F11', when: 'paused' },
  { command: 'pause', label: 'Pause', icon: 'debug-pause', keys: 'F6', when: 'running' },
  { command: 'stop', label: 'Stop', icon: 'debug-stop', keys: 'Shift+F5', when: 'any' },
];

/**
 * The debugger's bottom panel for the active notebook (or, while a file it stopped in is active, the notebook
 * being debugged), shown while a Debug Cell run goes (or when the kernel cannot debug): the controls, the call
 * stack by cell and file, the selected frame's locals and globals, an evaluate box. The paused frame's place
 * shows: its file opens at the line, or its notebook comes back to the front.
 * Also the debugger's commands and keys (VS Code's: F5, F10, F11, Shift+F11, F9) and the palette's Debug Cell.
 */
export function DebugPanel() {
  const store = useDebuggerStore();
  const openFiles = useOpenFilesStore();
  const active = useStore(openFiles, (s) => s.active) ?? null;
  const state = useStore(store);
  const path = store.sessionPath(active);
  const activeNotebook = isNotebook(active) ? active : null;
  const session = store.session(path);
  const status = session?.status ?? 'off';
  const [expression, setExpression] = useState('');
  const [dismissed, setDismissed] = useState<string | null>(null);

  const can = (when: 'paused' | 'running' | 'any') =>
    when === 'any' ? status === 'paused' || status === 'running' : status === when;
  const editorHasFocus = () => Boolean(document.activeElement?.closest('.monaco-editor'));

  useCommands([
    {
      id: 'debugger.debugCell',
      title: 'Debug Cell',
      category: 'Notebook',
      when: () => Boolean(activeNotebook && state.focused?.cellId && state.focused.path === activeNotebook),
      run: () => {
        const focused = store.getState().focused;
        if (activeNotebook && focused?.cellId && focused.path === activeNotebook)
          void store.debugCell(activeNotebook, focused.cellId);
      },
    },
    {
      id: 'debugger.toggleBreakpoint',
      title: 'Toggle Breakpoint',
      category: 'Debug',
      keys: 'F9',
      // A code cell of the active notebook, or the active `.py` file, has the focus.
      when: () => Boolean(state.focused && state.focused.path === active && editorHasFocus()),
      run: () => {
        const focused = store.getState().focused;
        const line = focused?.line();
        if (!focused || !line) return;
        if (focused.cellId) void store.toggleBreakpoint(focused.path, focused.cellId, line);
        else void store.toggleFileBreakpoint(focused.path, line);
      },
    },
    ...CONTROLS.map((control) => ({
      id: `debugger.${control.command}`,
      title: control.label,
      category: 'Debug',
      keys: control.keys,
      when: () => Boolean(path) && can(control.when),
      run: () => void (path && store.command(path, control.command)),
    })),
  ]);

  const reveals = useReveals();
  // Where the run stopped shows: a module's file opens at the line, a cell's notebook comes back to the front.
  const shownFrame = status === 'paused' ? session?.frames[state.selectedFrame] : undefined;
  const shownFile = shownFrame?.file ?? null;
  const shownCell = shownFrame?.cellId ?? null;
  const shownLine = shownFrame?.line ?? 0;
  useEffect(() => {
    if (shownFile) {
      reveals.request(shownFile, { line: shownLine, start: 0, end: 0 });
      void openFiles.open(shownFile);
    } else if (shownCell && path && openFiles.getState().active !== path) void openFiles.open(path);
  }, [openFiles, reveals, path, shownFile, shownCell, shownLine]);

  if (!path || !session || status === 'off') return null;
  if (status === 'unavailable') {
    if (dismissed === session.message) return null;
    return (
      <div className="debug-unavailable" role="status">
        <Icon name="debug-alt" size={14} />
        <span title={session.message}>{session.message}</span>
        <button
          type="button"
          className="icon-btn"
          aria-label="Dismiss"
          onClick={() => setDismissed(session.message ?? '')}
        >
          <XIcon />
        </button>
      </div>
    );
  }

  const frames = session.frames;
  return (
    <section className="debug-panel" role="region" aria-label="Debugger">
      <div className="debug-bar" role="toolbar" aria-label="Debug controls">
        <span className="debug-title">{status === 'paused' ? 'Paused' : 'Running'}</span>
        {CONTROLS.map((control) => (
          <button
            key={control.command}
            type="button"
            className="icon-btn"
            aria-label={control.label}
            title={`${control.label} (${control.keys})`}
            disabled={!can(control.when)}
            onClick={() => void store.command(path, control.command)}
          >
            <Icon name={control.icon} />
          </button>
        ))}
        {state.error && (
          <span className="debug-error" role="alert">
            {state.error}
            <button type="button" className="icon-btn" aria-label="Dismiss error" onClick={() => store.dismissError()}>
              <XIcon />
            </button>
          </span>
        )}
      </div>
      {session.notice && (
        <div className="debug-notice" role="note" title={session.notice}>
          {session.notice}
        </div>
      )}
      <div className="debug-body">
        <Pane title="Call Stack">
          <ul className="debug-stack" aria-label="Call Stack">
            {frames.map((frame, index) => (
              <li key={frame.id} aria-current={index === state.selectedFrame ? 'true' : undefined}>
                <button type="button" className="debug-frame" onClick={() => void store.selectFrame(path, index)}>
                  <span className="debug-frame-name">{frame.name}</span>
                  <span className="debug-frame-where">
                    {frame.where}:{frame.line}
                  </span>
                </button>
              </li>
            ))}
          </ul>
        </Pane>
        <Pane title="Variables">
          {state.scopes?.map((scope) => (
            <div key={scope.name} role="group" aria-label={scope.name}>
              <div className="debug-scope">{scope.name}</div>
              {scope.variables.map((v) => (
                <div key={v.name} className="debug-var" title={`${v.name}: ${v.type}`}>
                  <span className="debug-var-name">{v.name}</span>
                  <span className="debug-var-type">{v.type}</span>
                  <span className="debug-var-value">{v.value}</span>
                </div>
              ))}
            </div>
          ))}
        </Pane>
        <Pane title="Evaluate">
          <div className="debug-evaluations" role="log" aria-label="Evaluations">
            {state.evaluations.map((e, i) => (
              <div key={i} className={e.ok ? 'debug-eval' : 'debug-eval debug-eval-error'}>
                <span className="debug-eval-expr">{e.expression}</span> = {e.result}
              </div>
            ))}
          </div>
          <input
            className="debug-evaluate"
            aria-label="Evaluate in the selected frame"
            placeholder={status === 'paused' ? 'Expression (Enter)' : 'Evaluates while paused'}
            disabled={status !== 'paused'}
            value={expression}
            onChange={(e) => setExpression(e.target.value)}
            onKeyDown={(e) => {
              if (e.key !== 'Enter') return;
              e.preventDefault();
              void store.evaluate(path, expression);
              setExpression('');
            }}
          />
        </Pane>
      </div>
    </section>
  );
}

function Pane({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div className="debug-pane">
      <div className="debug-pane-title">{title}</div>
      <div className="debug-pane-body">{children}</div>
    </div>
  );
}

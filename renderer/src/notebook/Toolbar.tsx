import type { CellType } from '../../../shared/contract';
import type { ReactNode } from 'react';
import { useStore } from '../base';
import { ClearIcon, PlayIcon, PlusIcon, RestartIcon, RestartRunIcon, RunAllIcon, SaveIcon, StopIcon } from '../ui';
import { UntrustedKernelNotice } from '../trust';
import { ExportMenu } from './export/ExportMenu';
import type { NotebookController } from './notebook-controller';
import type { NotebookSessionState } from './notebook-session';

const STATUS_TEXT: Record<string, string> = {
  none: 'no kernel',
  starting: 'starting',
  idle: 'idle',
  busy: 'busy',
  restarting: 'restarting',
  dead: 'dead',
  disconnected: 'disconnected',
};

function kernelStatusText(status: string): string {
  return STATUS_TEXT[status] ?? status;
}

/** One toolbar button: its accessible name, its tooltip (with the key), and an icon (plus a word when `text`). */
function ToolButton(props: {
  label: string;
  title: string;
  text?: boolean;
  disabled?: boolean;
  onClick: () => void;
  children: ReactNode;
}) {
  return (
    <button
      type="button"
      className={props.text ? 'nb-tool nb-tool-text' : 'nb-tool'}
      aria-label={props.label}
      title={props.title}
      disabled={props.disabled}
      onClick={props.onClick}
    >
      {props.children}
    </button>
  );
}

/** The notebook's toolbar: save, add, run, kernel actions, the cell type, the dirty mark and the kernel picker. */
export function Toolbar({ notebook, state }: { notebook: NotebookController; state: NotebookSessionState }) {
  const { session } = notebook;
  const activeId = useStore(notebook, (s) => s.activeId);
  const saving = useStore(notebook, (s) => s.saving);
  const { kernel } = state;
  const status = kernelStatusText(kernel.status);
  // In trouble, the toolbar says why in words (JupyterLab's "Server Connection Error"), not just "disconnected".
  const trouble = (kernel.status === 'disconnected' || kernel.status === 'dead') && kernel.message;
  const kernelChoices = state.specs?.specs ?? [];
  const currentKernel =
    kernel.name ?? String((state.metadata.kernelspec as { name?: unknown } | undefined)?.name ?? '');
  const activeIndex = state.cells.findIndex((c) => c.cell.id === activeId);

  return (
    <div className="nb-toolbar" role="toolbar" aria-label="Notebook">
      <ToolButton label="Save notebook" title="Save (Ctrl+S)" disabled={saving} onClick={() => void notebook.save()}>
        <SaveIcon />
      </ToolButton>
      <ToolButton
        label="Add cell"
        title="Add a code cell below the selected one (B)"
        onClick={notebook.insertBelowActive}
      >
        <PlusIcon />
      </ToolButton>
      <span className="nb-tool-sep" />
      <ToolButton
        label="Run selected cell"
        title="Run the selected cell and advance (Shift+Enter)"
        disabled={!activeId}
        onClick={() => activeId && notebook.run(activeId, 'advance')}
      >
        <PlayIcon />
      </ToolButton>
      <ToolButton label="Run all" title="Run all cells" text onClick={notebook.runAll}>
        <RunAllIcon />
        <span>Run all</span>
      </ToolButton>
      <ToolButton label="Interrupt" title="Interrupt the kernel" onClick={() => void session.interrupt()}>
        <StopIcon size={14} />
      </ToolButton>
      <ToolButton
        label="Restart"
        title="Restart the kernel (variables are lost, outputs stay)"
        onClick={() => void session.restart()}
      >
        <RestartIcon />
      </ToolButton>
      <ToolButton
        label="Rerun everything in a fresh kernel"
        title="Restart the kernel and run all cells"
        onClick={() => void session.restartRunAll()}
      >
        <RestartRunIcon />
      </ToolButton>
      <ToolButton label="Clear all outputs" title="Clear all outputs" onClick={notebook.clearAll}>
        <ClearIcon />
      </ToolButton>
      <ExportMenu session={session} />
      <span className="nb-tool-sep" />
      <select
        className="nb-celltype"
        aria-label="Cell type"
        value={state.cells[activeIndex]?.cell.cell_type ?? 'code'}
        disabled={activeIndex < 0}
        onChange={(e) => activeId && notebook.setType(activeId, e.target.value as CellType)}
      >
        <option value="code">Code</option>
        <option value="markdown">Markdown</option>
        <option value="raw">Raw</option>
      </select>
      <span className="spacer" />
      {state.dirty && (
        <span className="nb-dirty" title="Unsaved changes" data-testid="notebook-dirty">
          <span className="nb-dirty-dot" aria-hidden />
          Unsaved
        </span>
      )}
      <UntrustedKernelNotice session={session} />
      <select
        className="nb-kernel-picker"
        aria-label="Kernel"
        title="Kernel"
        value={currentKernel}
        disabled={!kernelChoices.length}
        onChange={(e) => void session.setKernel(e.target.value)}
      >
        {!kernelChoices.some((k) => k.name === currentKernel) && (
          <option value={currentKernel}>{kernel.displayName ?? (currentKernel || 'No kernel')}</option>
        )}
        {kernelChoices.map((spec) => (
          <option key={spec.name} value={spec.name}>
            {spec.displayName}
          </option>
        ))}
      </select>
      <span
        className={`nb-kernel-state nb-kernel-${kernel.status}${trouble ? ' nb-kernel-trouble' : ''}`}
        title={trouble || `Kernel ${status}`}
      >
        <span className="nb-kernel-dot" aria-hidden />
        <span role="status">{trouble || status}</span>
      </span>
      {(kernel.status === 'disconnected' || kernel.status === 'dead') && (
        <button type="button" className="btn btn-small" onClick={() => void session.reconnect()}>
          Reconnect
        </button>
      )}
    </div>
  );
}

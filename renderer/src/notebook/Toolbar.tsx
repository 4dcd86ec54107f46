import { ENVIRONMENT_KERNELSPEC_PREFIX, type CellType } from '../../../shared/contract';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useStore } from '../base';
import { useCommandRegistry } from '../commands';
import {
  ClearIcon,
  ContextMenu,
  MoreIcon,
  PlayIcon,
  PlusIcon,
  RestartIcon,
  RestartRunIcon,
  RunAllIcon,
  SaveIcon,
  StopIcon,
  VariablesIcon,
  type MenuItem,
} from '../ui';
import { UntrustedKernelNotice } from '../trust';
import { EnvironmentsButton, environmentLabel, useKernelEnvironments } from './environments';
import { ExportMenu } from './export/ExportMenu';
import type { NotebookController } from './notebook-controller';
import type { NotebookSessionState } from './notebook-session';
import { useCollapsedTools } from './toolbar-overflow';

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

/** The width the "More actions" button takes (its 26 px and the gap). */
const MORE_WIDTH = 30;

/** One action of the toolbar: on the bar while it fits, else in "More actions" (lowest `priority` goes first). */
interface Action {
  id: string;
  /** Its name: the button's accessible name, tooltip and menu item. */
  label: string;
  /** What the tooltip adds after the name. */
  hint?: string;
  /** The key the tooltip and the More actions menu show (the registry binds it; this only tells). */
  shortcut?: string;
  priority: number;
  icon: ReactNode;
  /** A word beside the icon on the bar. */
  text?: string;
  disabled?: boolean;
  /** A separator goes before it on the bar. */
  groupStart?: boolean;
  run: () => void;
}

/** The tooltip: the name first (an icon-only button says what it is), then why and the key. */
function tooltip(action: Pick<Action, 'label' | 'hint' | 'shortcut'>): string {
  return `${action.label}${action.hint ? `: ${action.hint}` : ''}${action.shortcut ? ` (${action.shortcut})` : ''}`;
}

function ToolButton({ action }: { action: Action }) {
  return (
    <button
      type="button"
      className={action.text ? 'nb-tool nb-tool-text' : 'nb-tool'}
      aria-label={action.label}
      title={tooltip(action)}
      disabled={action.disabled}
      onClick={action.run}
    >
      {action.icon}
      {action.text && <span className="nb-tool-label">{action.text}</span>}
    </button>
  );
}

const EXPORTS = [
  { id: 'notebook.exportHtml', label: 'Export as HTML' },
  { id: 'notebook.exportScript', label: 'Export as Python script' },
  { id: 'notebook.exportPdf', label: 'Export as PDF' },
];
const CELL_TYPES: { type: CellType; label: string }[] = [
  { type: 'code', label: 'Code' },
  { type: 'markdown', label: 'Markdown' },
  { type: 'raw', label: 'Raw' },
];

/**
 * The notebook's toolbar: save, add, run, kernel actions, export and the cell type, collapsing into "More
 * actions" by priority when the bar is narrow; then the dirty mark and the kernel area (picker and status),
 * which never collapse.
 */
export function Toolbar({ notebook, state }: { notebook: NotebookController; state: NotebookSessionState }) {
  const { session } = notebook;
  const commands = useCommandRegistry();
  const activeId = useStore(notebook, (s) => s.activeId);
  const saving = useStore(notebook, (s) => s.saving);
  const activeIndex = state.cells.findIndex((c) => c.cell.id === activeId);
  const cellType = state.cells[activeIndex]?.cell.cell_type ?? 'code';
  const row = useRef<HTMLDivElement>(null);
  const [menu, setMenu] = useState<{ x: number; y: number } | null>(null);

  const actions: Action[] = [
    {
      id: 'save',
      label: 'Save notebook',
      shortcut: 'Ctrl+S',
      priority: 10,
      icon: <SaveIcon />,
      disabled: saving,
      run: () => void notebook.save(),
    },
    {
      id: 'add',
      label: 'Add cell',
      hint: 'a code cell below the selected one',
      shortcut: 'B',
      priority: 9,
      icon: <PlusIcon />,
      run: notebook.insertBelowActive,
    },
    {
      id: 'run',
      label: 'Run selected cell',
      hint: 'and select the next',
      shortcut: 'Shift+Enter',
      priority: 8,
      icon: <PlayIcon />,
      disabled: !activeId,
      groupStart: true,
      run: () => activeId && notebook.run(activeId, 'advance'),
    },
    { id: 'runAll', label: 'Run all', hint: 'every cell, in order', priority: 7, icon: <RunAllIcon />, text: 'Run all', run: notebook.runAll }, // prettier-ignore
    { id: 'interrupt', label: 'Interrupt', hint: 'stop the running cell', priority: 6, icon: <StopIcon size={14} />, run: () => void session.interrupt() }, // prettier-ignore
    {
      id: 'restart',
      label: 'Restart',
      hint: 'a fresh kernel; variables are lost, outputs stay',
      priority: 5,
      icon: <RestartIcon />,
      run: () => void session.restart(),
    },
    {
      id: 'restartRunAll',
      label: 'Rerun everything in a fresh kernel',
      hint: 'restart, then run all cells',
      priority: 3,
      icon: <RestartRunIcon />,
      run: () => void session.restartRunAll(),
    },
    { id: 'clear', label: 'Clear all outputs', priority: 2, icon: <ClearIcon />, run: notebook.clearAll },
    {
      id: 'variables',
      label: 'Variables',
      hint: 'show or hide what the kernel holds',
      priority: 2.5,
      icon: <VariablesIcon />,
      text: 'Variables',
      groupStart: true,
      // The panel is the shell's (under the editor); its command toggles it for the active notebook.
      run: () => void commands.run('variables.toggle'),
    },
  ];
  // The cell type and Export are not buttons, but they collapse like them.
  const collapsible = [...actions, { id: 'export', priority: 1 }, { id: 'cellType', priority: 4 }];
  const hidden = useCollapsedTools(row, collapsible, MORE_WIDTH);
  const shows = (id: string) => !hidden.has(id);

  const menuItems: MenuItem[] = [
    ...actions
      .filter((a) => hidden.has(a.id))
      .map((a) => ({ label: a.label, shortcut: a.shortcut, disabled: a.disabled, onSelect: a.run })),
    ...(hidden.has('cellType')
      ? CELL_TYPES.map(({ type, label }) => ({
          label: `Cell type: ${label}${type === cellType ? ' ✓' : ''}`,
          disabled: activeIndex < 0 || type === cellType,
          onSelect: () => activeId && notebook.setType(activeId, type),
        }))
      : []),
    ...(hidden.has('export') ? EXPORTS.map(({ id, label }) => ({ label, onSelect: () => void commands.run(id) })) : []),
  ];

  return (
    <div className="nb-toolbar" role="toolbar" aria-label="Notebook">
      <div className="nb-toolbar-actions" ref={row}>
        {actions.map((action) => (
          <span key={action.id} className="nb-tool-slot" data-tool={action.id} hidden={!shows(action.id)}>
            {action.groupStart && <span className="nb-tool-sep" />}
            <ToolButton action={action} />
          </span>
        ))}
        {/* Mounted while collapsed too: it keeps the palette's Export commands. */}
        <span className="nb-tool-slot" data-tool="export" hidden={!shows('export')}>
          <ExportMenu session={session} />
        </span>
        <span className="nb-tool-slot" data-tool="cellType" hidden={!shows('cellType')}>
          <span className="nb-tool-sep" />
          <select
            className="nb-celltype"
            aria-label="Cell type"
            title="Cell type (Y code, M markdown, R raw)"
            value={cellType}
            disabled={activeIndex < 0}
            onChange={(e) => activeId && notebook.setType(activeId, e.target.value as CellType)}
          >
            {CELL_TYPES.map(({ type, label }) => (
              <option key={type} value={type}>
                {label}
              </option>
            ))}
          </select>
        </span>
      </div>
      {hidden.size > 0 && (
        <button
          type="button"
          className="nb-tool"
          aria-label="More actions"
          aria-haspopup="menu"
          aria-expanded={menu !== null}
          title={`More actions: ${menuItems.filter((i) => i !== 'separator').length} more`}
          onClick={(event) => {
            const box = event.currentTarget.getBoundingClientRect();
            setMenu({ x: box.left, y: box.bottom + 2 });
          }}
        >
          <MoreIcon />
        </button>
      )}
      {menu && (
        <ContextMenu x={menu.x} y={menu.y} label="More actions" items={menuItems} onClose={() => setMenu(null)} />
      )}
      {state.dirty && (
        <span className="nb-dirty" title="Unsaved changes" data-testid="notebook-dirty">
          <span className="nb-dirty-dot" aria-hidden />
          <span className="nb-tool-label">Unsaved</span>
        </span>
      )}
      <KernelArea notebook={notebook} state={state} />
    </div>
  );
}

/**
 * The kernel picker and status: what the operator watches, so it never collapses. A long status (a server not
 * answering) ellipsizes with its whole text in the tooltip and the live region, never clipped silently.
 */
function KernelArea({ notebook, state }: { notebook: NotebookController; state: NotebookSessionState }) {
  const { session } = notebook;
  const { kernel } = state;
  const environmentsStore = useKernelEnvironments();
  const { list: environmentList, error: environmentsError } = useStore(environmentsStore);
  // Asked once; main announces every change after that (a new .venv, trust granted or revoked).
  useEffect(() => {
    void environmentsStore.load();
  }, [environmentsStore]);
  const status = kernelStatusText(kernel.status);
  // In trouble, the toolbar says why in words (JupyterLab's "Server Connection Error"), not just "disconnected".
  const trouble = (kernel.status === 'disconnected' || kernel.status === 'dead') && kernel.message;
  const environments = environmentList?.environments ?? [];
  // Kiln's environment kernelspecs are listed as environments, once.
  const kernelChoices = (state.specs?.specs ?? []).filter((k) => !k.name.startsWith(ENVIRONMENT_KERNELSPEC_PREFIX));
  const currentKernel =
    kernel.name ?? String((state.metadata.kernelspec as { name?: unknown } | undefined)?.name ?? '');
  const currentEnvironment = environments.find((e) => e.id === currentKernel);
  const currentName =
    currentEnvironment?.displayName ??
    kernelChoices.find((k) => k.name === currentKernel)?.displayName ??
    kernel.displayName;
  const value = currentEnvironment ? `env:${currentEnvironment.id}` : currentKernel;
  const listed = currentEnvironment || kernelChoices.some((k) => k.name === currentKernel);
  return (
    <div className="nb-kernel-area">
      <UntrustedKernelNotice session={session} />
      <select
        className="nb-kernel-picker"
        aria-label="Kernel"
        title={`Kernel: ${currentName ?? (currentKernel || 'none')}`}
        value={value}
        disabled={!kernelChoices.length}
        onChange={(e) => {
          const picked = e.target.value;
          if (picked.startsWith('env:')) void session.setEnvironment(picked.slice('env:'.length));
          else void session.setKernel(picked);
        }}
      >
        {!listed && <option value={currentKernel}>{kernel.displayName ?? (currentKernel || 'No kernel')}</option>}
        <optgroup label="Kernels">
          {kernelChoices.map((spec) => (
            <option key={spec.name} value={spec.name}>
              {spec.displayName}
            </option>
          ))}
        </optgroup>
        {environments.length > 0 && (
          <optgroup label="Python environments">
            {environments.map((env) => (
              <option
                key={env.id}
                value={`env:${env.id}`}
                disabled={!env.hasIpykernel}
                title={env.installCommand ? `No ipykernel. Install it with: ${env.installCommand}` : env.displayName}
              >
                {environmentLabel(env)}
                {env.hasIpykernel ? '' : ' (no ipykernel)'}
              </option>
            ))}
          </optgroup>
        )}
      </select>
      <EnvironmentsButton
        list={environmentList}
        error={environmentsError}
        current={currentKernel}
        onPick={(id) => void session.setEnvironment(id)}
        onOpen={() => void environmentsStore.load()}
      />
      <span
        className={`nb-kernel-state nb-kernel-${kernel.status}${trouble ? ' nb-kernel-trouble' : ''}`}
        title={trouble || `Kernel ${status}`}
      >
        <span className="nb-kernel-dot" aria-hidden />
        <span role="status" className="nb-tool-label nb-kernel-status-text">
          {trouble || status}
        </span>
      </span>
      {(kernel.status === 'disconnected' || kernel.status === 'dead') && (
        <button type="button" className="btn btn-small" onClick={() => void session.reconnect()}>
          Reconnect
        </button>
      )}
    </div>
  );
}

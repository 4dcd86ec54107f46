import { memo, useRef, useState, type KeyboardEvent, type MouseEvent } from 'react';
import {
  ArrowDownIcon,
  ArrowUpIcon,
  ChevronIcon,
  ContextMenu,
  MoreIcon,
  PlayIcon,
  TrashIcon,
  type MenuItem,
} from '../ui';
import { outputsHidden, outputsScrolled, sourceHidden } from './cell-metadata';
import { CellEditor } from './CellEditor';
import { codeCellActions } from './cell-contributions';
import { useBridge } from '../base';
import { useOpenFilesStore } from '../editor';
import { useCellDrags } from './cell-drag';
import type { KernelAssistSource } from './kernel-assist';
import type { CellTimings } from './cell-timing';
import { CellTimingLabel } from './CellTimingLabel';
import type { CollapseActions } from './collapse';
import { DomHighlights } from './find/dom-highlights';
import { useCurrentMatchArea, useMatchCount } from './find/find-context';
import type { CellView } from './notebook-session';
import { AgentCellMarkButton, type AgentCellMark } from '../agent-review';
import type { CellActions } from './types';
import { DeferredOutputs, EAGER_CELLS } from './DeferredOutputs';
import { Markdown } from './Outputs';
import { dataHandle } from './output-data';

export interface CellProps {
  view: CellView;
  /** Why a running or queued cell is waiting (the Jupyter server is not answering), from the kernel's status. */
  waitNote?: string;
  index: number;
  count: number;
  active: boolean;
  /** Part of the selection (announced with aria-selected). */
  selected: boolean;
  /** More than one cell is selected: the menu speaks of "selected cells". */
  multiple: boolean;
  lineNumbers: boolean;
  editing: boolean;
  /** Markdown shown as source (being edited) rather than rendered. */
  unrendered: boolean;
  generation: number;
  language: string;
  actions: CellActions;
  /** The notebook's kernel, for completion and inspection in code cells. */
  assist?: KernelAssistSource;
  /** Each code cell's last run (duration, end), shown under its input. */
  timings?: CellTimings;
  /** A heading cell: whether its section is collapsed, and what the collapse hides. */
  section?: SectionState | null;
  collapse?: CollapseActions;
  /** An Agent turn changed this cell and the operator has not reviewed it: the agent's tint and its review. */
  agentMark?: AgentCellMark;
}

export interface SectionState {
  collapsed: boolean;
  /** The cells the collapse hides. */
  hiddenIds: readonly string[];
}

/** ", 3 matches" after a folded part's label while the find bar finds something in it. */
function MatchCount({ cellIds, area }: { cellIds: readonly string[]; area?: 'source' | 'output' }) {
  const n = useMatchCount(cellIds, area);
  return n ? <>{`, ${n} ${n === 1 ? 'match' : 'matches'}`}</> : null;
}

function InputPrompt({
  prompt,
  password,
  onAnswer,
}: {
  prompt: string;
  password: boolean;
  onAnswer: (value: string) => void;
}) {
  const [value, setValue] = useState('');
  return (
    <form
      className="nb-stdin"
      onSubmit={(e) => {
        e.preventDefault();
        onAnswer(value);
      }}
    >
      <label>
        <span className="nb-stdin-prompt">{prompt}</span>
        <input
          autoFocus
          aria-label={prompt.trim() || 'Input'}
          type={password ? 'password' : 'text'}
          value={value}
          onChange={(e) => setValue(e.target.value)}
          onKeyDown={(e) => e.stopPropagation()}
        />
      </label>
    </form>
  );
}

/** One notebook cell: gutter with run button and prompt, editor (or rendered markdown), outputs, cell toolbar. */
export const Cell = memo(function Cell({
  view,
  index,
  count,
  active,
  selected,
  multiple,
  lineNumbers,
  editing,
  unrendered,
  generation,
  language,
  actions,
  assist,
  timings,
  section,
  collapse,
  waitNote,
  agentMark,
}: CellProps) {
  const { cell, state } = view;
  const note = state === 'idle' ? view.note : waitNote;
  const findCurrentArea = useCurrentMatchArea(cell.id);
  const outputsRef = useRef<HTMLDivElement>(null);
  const [menu, setMenu] = useState<{ x: number; y: number } | null>(null);
  const bridge = useBridge();
  const drags = useCellDrags.of(bridge);
  const openFiles = useOpenFilesStore();
  const isCode = cell.cell_type === 'code';
  const isMarkdown = cell.cell_type === 'markdown';
  const known = isCode || isMarkdown || cell.cell_type === 'raw';
  const showRendered = isMarkdown && !unrendered;
  const busy = state !== 'idle';
  const prompt = !isCode ? '' : busy ? '[*]:' : `[${cell.execution_count ?? ' '}]:`;
  const hideOutputs = isCode && outputsHidden(cell.metadata);
  const hideInput = known && sourceHidden(cell.metadata);
  const scrolled = isCode && outputsScrolled(cell.metadata);
  const cells = multiple && selected ? 'selected cells' : 'cell';

  const items: MenuItem[] = [
    { label: 'Run cell', onSelect: () => actions.run(cell.id, 'stay'), shortcut: 'Ctrl+Enter' },
    {
      label: 'Re-run cell',
      onSelect: () => actions.run(cell.id, 'stay'),
      disabled: !isCode || cell.execution_count === null,
    },
    { label: 'Run cells above', onSelect: () => actions.runScope(cell.id, 'above'), disabled: index === 0 },
    { label: 'Run this and below', onSelect: () => actions.runScope(cell.id, 'below') },
    'separator',
    { label: 'Insert cell above', onSelect: () => actions.insert(cell.id, 'above'), shortcut: 'A' },
    { label: 'Insert cell below', onSelect: () => actions.insert(cell.id, 'below'), shortcut: 'B' },
    { label: 'Move up', onSelect: () => actions.move(cell.id, -1), disabled: index === 0, shortcut: 'Ctrl+Shift+↑' },
    {
      label: 'Move down',
      onSelect: () => actions.move(cell.id, 1),
      disabled: index === count - 1,
      shortcut: 'Ctrl+Shift+↓',
    },
    'separator',
    { label: `Cut ${cells}`, onSelect: () => actions.cut(cell.id), shortcut: 'X' },
    { label: `Copy ${cells}`, onSelect: () => actions.copy(cell.id), shortcut: 'C' },
    { label: 'Paste cells below', onSelect: () => actions.paste(cell.id, 'below'), shortcut: 'V' },
    { label: 'Paste cells above', onSelect: () => actions.paste(cell.id, 'above'), shortcut: 'Shift+V' },
    'separator',
    {
      label: multiple && selected ? 'Merge selected cells' : 'Merge with cell below',
      onSelect: () => actions.merge(cell.id),
      disabled: !multiple && index === count - 1,
      shortcut: 'Shift+M',
    },
    {
      label: 'Split cell at cursor',
      onSelect: () => actions.split(cell.id),
      disabled: !known,
      shortcut: 'Ctrl+Shift+-',
    },
    'separator',
    { label: 'Change to code', onSelect: () => actions.setType(cell.id, 'code'), disabled: isCode, shortcut: 'Y' },
    {
      label: 'Change to markdown',
      onSelect: () => actions.setType(cell.id, 'markdown'),
      disabled: isMarkdown,
      shortcut: 'M',
    },
    {
      label: 'Change to raw',
      onSelect: () => actions.setType(cell.id, 'raw'),
      disabled: cell.cell_type === 'raw',
      shortcut: 'R',
    },
    'separator',
    {
      label: 'Clear output',
      onSelect: () => actions.clear(cell.id),
      disabled: !isCode || (cell.outputs.length === 0 && cell.execution_count === null),
    },
    {
      label: hideOutputs ? 'Show output' : 'Hide output',
      onSelect: () => actions.toggleOutputs(cell.id),
      disabled: !isCode,
      shortcut: 'O',
    },
    { label: hideInput ? 'Show input' : 'Hide input', onSelect: () => actions.toggleInput(cell.id), disabled: !known },
    { label: `Delete ${cells}`, onSelect: () => actions.remove(cell.id), shortcut: 'D D' },
  ];

  const onMouseDown = (e: MouseEvent) => {
    // Clicking the cell's chrome selects it (command mode); the editor's own focus enters edit mode.
    if ((e.target as HTMLElement).closest('.nb-editor, button, input, .menu, iframe, .nb-handle')) return;
    const extend = e.shiftKey;
    const toggle = e.ctrlKey || e.metaKey;
    if (extend) e.preventDefault(); // a Shift+click extends the selection, not a text selection
    actions.pointerSelect(cell.id, { extend, toggle });
  };

  const stopKeys = (e: KeyboardEvent) => {
    if (e.key === 'Enter' || e.key === ' ') e.stopPropagation();
  };

  return (
    <div
      ref={(el) => actions.registerCell(cell.id, el)}
      role="group"
      aria-label={`Cell ${index + 1}`}
      tabIndex={-1}
      data-cell-id={cell.id}
      data-cell-type={cell.cell_type}
      data-state={state}
      className={`nb-cell${active ? ' active' : ''}${selected ? ' selected' : ''}${editing ? ' editing' : ''}${busy ? ' busy' : ''}${agentMark ? ' agent-changed' : ''}`}
      onMouseDown={onMouseDown}
      onDoubleClick={() => {
        if (showRendered) actions.select(cell.id, 'edit');
      }}
    >
      <button
        type="button"
        tabIndex={-1}
        className="nb-collapser nb-handle"
        aria-label={hideInput ? 'Show input' : 'Hide input'}
        aria-expanded={!hideInput}
        title={`${hideInput ? 'Show input' : 'Hide input'}; drag to move`}
        onClick={() => collapse?.toggleSource(cell.id)}
        draggable
        onDragStart={(e) => drags.start(actions, cell.id, e)}
        onDragEnd={drags.end}
      />
      <div className="nb-gutter">
        {agentMark && <AgentCellMarkButton mark={agentMark} />}
        {section && (
          <button
            type="button"
            className="nb-heading-toggle"
            aria-label={section.collapsed ? 'Expand section' : 'Collapse section'}
            aria-expanded={!section.collapsed}
            title={section.collapsed ? 'Expand section (→)' : 'Collapse section (←)'}
            onClick={() => collapse?.toggleHeading(cell.id)}
            onKeyDown={stopKeys}
          >
            <ChevronIcon open={!section.collapsed} />
          </button>
        )}
        <button
          type="button"
          className="nb-run"
          aria-label="Run cell"
          title={isCode ? 'Run cell (Shift+Enter)' : 'Render cell (Shift+Enter)'}
          onClick={() => actions.run(cell.id, 'stay')}
          onKeyDown={stopKeys}
        >
          {busy ? <span className="nb-spinner" aria-hidden /> : <PlayIcon />}
        </button>
        <span
          className="nb-prompt"
          data-testid="execution-count"
          aria-label={isCode ? (busy ? 'Running' : `Execution count ${cell.execution_count ?? 'none'}`) : undefined}
        >
          {prompt}
        </span>
      </div>
      <div className="nb-body">
        {!known ? (
          <pre className="nb-out-note">
            A “{cell.cell_type}” cell from a newer notebook format; it is kept when saving.
          </pre>
        ) : hideInput ? (
          <button type="button" className="nb-hidden-part" onClick={() => collapse?.toggleSource(cell.id)}>
            … Input hidden
            <MatchCount cellIds={[cell.id]} area="source" />
          </button>
        ) : (
          <div className={`nb-input${showRendered ? ' rendered' : ''}`}>
            {!showRendered && (
              <CellEditor
                cellId={cell.id}
                source={cell.source}
                generation={generation}
                language={isCode ? language : isMarkdown ? 'markdown' : 'plaintext'}
                label={`Cell ${index + 1} ${isCode ? 'code' : cell.cell_type}`}
                onChange={(source) => actions.edit(cell.id, source)}
                onKey={(key) => actions.editorKey(cell.id, key)}
                onFocus={() => actions.select(cell.id, 'edit')}
                register={actions.registerEditor}
                lineNumbers={lineNumbers}
                assist={isCode ? assist : undefined}
              />
            )}
          </div>
        )}
        {isCode && timings && (
          <CellTimingLabel timings={timings} cellId={cell.id} running={state === 'running'} metadata={cell.metadata} />
        )}
        <DomHighlights cellId={cell.id} target={outputsRef} version={view} />
        <div
          ref={outputsRef}
          role="region"
          aria-label="Output"
          tabIndex={scrolled && !hideOutputs && cell.outputs.length ? 0 : undefined}
          data-find-current={findCurrentArea === 'output' || (findCurrentArea && showRendered) ? 'true' : undefined}
          className={`nb-outputs${cell.outputs.length || (showRendered && !hideInput) || view.input || view.answers.length ? '' : ' empty'}${scrolled && !hideOutputs ? ' scrolled' : ''}`}
        >
          {isCode && cell.outputs.length > 0 && (
            <button
              type="button"
              tabIndex={-1}
              className="nb-out-collapser"
              aria-label={hideOutputs ? 'Show outputs' : 'Hide outputs'}
              aria-expanded={!hideOutputs}
              title={hideOutputs ? 'Show outputs' : 'Hide outputs'}
              onClick={() => collapse?.toggleOutputs(cell.id)}
            />
          )}
          {showRendered &&
            !hideInput &&
            (cell.source.trim() ? (
              <Markdown source={cell.source} attachments={cell.attachments} />
            ) : (
              <div className="nb-markdown nb-placeholder">Empty markdown cell — double-click to edit</div>
            ))}
          {isCode &&
            (hideOutputs && cell.outputs.length ? (
              <button type="button" className="nb-hidden-part" onClick={() => collapse?.toggleOutputs(cell.id)}>
                … Outputs hidden
                <MatchCount cellIds={[cell.id]} area="output" />
              </button>
            ) : (
              <DeferredOutputs
                outputs={cell.outputs}
                executionCount={cell.execution_count}
                exactNumbers={cell.exactNumbers}
                cellId={cell.id}
                dataHandle={dataHandle(cell.source, cell.execution_count)}
                eager={index < EAGER_CELLS}
              />
            ))}
          {view.answers.map((line, i) => (
            <pre key={`answer-${i}`} className="nb-out-text nb-stdin-echo">
              {line}
            </pre>
          ))}
          {view.input && (
            <InputPrompt
              prompt={view.input.prompt}
              password={view.input.password}
              onAnswer={(value) => actions.answer(cell.id, value)}
            />
          )}
        </div>
        {isCode && note && (
          <div className="nb-cell-note" role="note" aria-label={state === 'idle' ? 'Not run' : 'Waiting'}>
            {note}
          </div>
        )}
        {section?.collapsed && (
          <button type="button" className="nb-section-hidden" onClick={() => collapse?.toggleHeading(cell.id)}>
            {section.hiddenIds.length} {section.hiddenIds.length === 1 ? 'cell' : 'cells'} hidden
            <MatchCount cellIds={section.hiddenIds} />
          </button>
        )}
      </div>
      <div className="nb-cell-toolbar" role="toolbar" aria-label={`Cell ${index + 1} actions`}>
        {isCode &&
          codeCellActions().map((action) => (
            <button
              key={action.id}
              type="button"
              className="icon-btn"
              aria-label={action.label}
              title={action.label}
              onKeyDown={stopKeys}
              onClick={() => {
                // The cell's notebook is the document shown (read now: cells do not re-render on tab switches).
                const notebookPath = openFiles.getState().active;
                if (notebookPath) void action.run({ bridge, notebookPath, cellId: cell.id });
              }}
            >
              {action.icon}
            </button>
          ))}
        <button
          type="button"
          className="icon-btn"
          aria-label="Move cell up"
          title="Move up"
          disabled={index === 0}
          onClick={() => actions.move(cell.id, -1)}
          onKeyDown={stopKeys}
        >
          <ArrowUpIcon />
        </button>
        <button
          type="button"
          className="icon-btn"
          aria-label="Move cell down"
          title="Move down"
          disabled={index === count - 1}
          onClick={() => actions.move(cell.id, 1)}
          onKeyDown={stopKeys}
        >
          <ArrowDownIcon />
        </button>
        <button
          type="button"
          className="icon-btn"
          aria-label="Delete cell"
          title="Delete (D D)"
          onClick={() => actions.remove(cell.id)}
          onKeyDown={stopKeys}
        >
          <TrashIcon size={16} />
        </button>
        <button
          type="button"
          className="icon-btn"
          aria-label="Cell menu"
          aria-haspopup="menu"
          title="More"
          onKeyDown={stopKeys}
          onClick={(e) => {
            const box = e.currentTarget.getBoundingClientRect();
            setMenu({ x: box.right - 220, y: box.bottom + 2 });
          }}
        >
          <MoreIcon />
        </button>
      </div>
      {menu && (
        <ContextMenu
          x={menu.x}
          y={menu.y}
          label={`Cell ${index + 1} menu`}
          items={items}
          onClose={() => setMenu(null)}
        />
      )}
    </div>
  );
});

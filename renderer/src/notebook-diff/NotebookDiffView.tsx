import { useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import type { NotebookDiffCell, NotebookDiffResult } from '../../../shared/contract';
import type { CellDiff, KeyChange } from '../../../shared/notebook-diff';
import { LazyCellSourceDiff } from './CellSourceDiff';
import { cellOutputView } from './output-view';
import {
  allControls,
  decisionControls,
  diffRows,
  refusedLabel,
  stepChange,
  unchangedLabel,
  type ChangeRefusal,
  type Decision,
  type DecisionMode,
  type DiffRow,
} from './rows';
import './notebook-diff.css';

/** How a review decides: a proposal is accepted or rejected; an agent's change already made is kept or undone. */
export interface NotebookDiffDecisions {
  mode: DecisionMode;
  /** What was decided per change id; a decided change shows its decision instead of buttons. */
  decided?: Readonly<Record<string, Decision>>;
  /** Changes whose Reject (Undo) is refused as things stand, by change id: marked, their button disabled. */
  refused?: Readonly<Record<string, ChangeRefusal>>;
  /** Accept (proposal) or Keep (agent) one change. */
  onAccept: (changeId: string) => void;
  /** Reject (proposal) or Undo (agent) one change. */
  onReject: (changeId: string) => void;
  /** `undecided`: the change ids not decided yet. */
  onAcceptAll: (undecided: string[]) => void;
  onRejectAll: () => void;
}

export interface NotebookDiffViewProps {
  /** What `notebook.diff` answered. */
  result: NotebookDiffResult;
  sideBySide: boolean;
  /** What each side is, for the source diffs' screen reader names ("the version from the Timeline", "now"). */
  oldLabel: string;
  newLabel: string;
  /** Monaco's language for code cells (the notebook's kernel language); python by default. */
  language?: string;
  /** Absent: read-only, no buttons. */
  decisions?: NotebookDiffDecisions;
  /** More buttons for one change (the Timeline's "Restore this cell"). */
  cellActions?: (cell: CellDiff) => ReactNode;
}

function monacoLanguage(cellType: string, language: string): string {
  if (cellType === 'code') return language;
  return cellType === 'markdown' ? 'markdown' : 'plaintext';
}

/** A metadata value as one short line. */
function valueText(value: unknown): string {
  if (value === undefined) return '(none)';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 120 ? `${text.slice(0, 117)}…` : text;
}

function KeyChanges({ title, changes }: { title: string; changes: readonly KeyChange[] }) {
  if (!changes.length) return null;
  return (
    <div className="nbd-keys">
      <div className="nbd-keys-title">{title}</div>
      <ul>
        {changes.map((change) => (
          <li key={change.key}>
            <code>{change.key}</code> {change.status}
            {change.status !== 'added' && <span className="nbd-old">{valueText(change.old)}</span>}
            {change.status === 'changed' && ' → '}
            {change.status !== 'deleted' && <span className="nbd-new">{valueText(change.new)}</span>}
          </li>
        ))}
      </ul>
    </div>
  );
}

function Outputs({ cell, side }: { cell: NotebookDiffCell | undefined; side: 'Before' | 'After' }) {
  const OutputList = cellOutputView();
  return (
    <div className={`nbd-outputs nbd-outputs-${side === 'Before' ? 'old' : 'new'}`}>
      <div className="nbd-side">{side}</div>
      {!cell || !cell.outputs.length ? (
        <div className="nbd-dim">No outputs</div>
      ) : OutputList ? (
        <OutputList outputs={cell.outputs} executionCount={cell.execution_count} exactNumbers={cell.exactNumbers} />
      ) : (
        <div className="nbd-dim">{cell.outputs.length} outputs</div>
      )}
    </div>
  );
}

/** A change's Accept / Reject (Keep / Undo), or what was decided. */
function Decide({ decisions, changeId }: { decisions: NotebookDiffDecisions; changeId: string }) {
  const controls = decisionControls(decisions.mode, decisions.decided?.[changeId], decisions.refused?.[changeId]);
  if (controls.decided) return <span className="nbd-decided">{controls.decided}</span>;
  return controls.buttons.map(({ label, decision, disabledWhy }) => (
    <button
      key={decision}
      type="button"
      className={`btn btn-small${decision === 'accepted' ? ' btn-primary' : ''}`}
      disabled={disabledWhy !== undefined}
      title={disabledWhy}
      onClick={() => (decision === 'accepted' ? decisions.onAccept(changeId) : decisions.onReject(changeId))}
    >
      {label}
    </button>
  ));
}

function PlainSource({ source, tone }: { source: string; tone: 'added' | 'deleted' | 'same' }) {
  return <pre className={`nbd-plain nbd-plain-${tone}`}>{source || ' '}</pre>;
}

interface ChangeProps {
  row: Extract<DiffRow, { kind: 'change' }>;
  props: NotebookDiffViewProps;
  showMetadata: boolean;
}

function CellChange({ row, props, showMetadata }: ChangeProps) {
  const { cell } = row;
  const { result, decisions, language = 'python' } = props;
  const old = cell.oldIndex !== null ? result.base[cell.oldIndex] : undefined;
  const now = cell.newIndex !== null ? result.next[cell.newIndex] : undefined;
  const lang = monacoLanguage(cell.cellType, language);
  let source: ReactNode;
  if (cell.status === 'added') source = <PlainSource source={now?.source ?? ''} tone="added" />;
  else if (cell.status === 'deleted') source = <PlainSource source={old?.source ?? ''} tone="deleted" />;
  else if (cell.kinds.includes('source') && cell.source)
    source = (
      <LazyCellSourceDiff
        original={cell.source.old}
        modified={cell.source.new}
        language={lang}
        sideBySide={props.sideBySide}
        originalLabel={`Cell ${row.number} source, ${props.oldLabel}`}
        modifiedLabel={`Cell ${row.number} source, ${props.newLabel}`}
      />
    );
  else source = <PlainSource source={now?.source ?? ''} tone="same" />;
  const showOutputs =
    cell.kinds.includes('outputs') ||
    (cell.status === 'added' && Boolean(now?.outputs.length)) ||
    (cell.status === 'deleted' && Boolean(old?.outputs.length));
  const details = [
    ...(cell.metadata ?? []),
    ...(cell.fields ?? []),
    ...(cell.executionCount
      ? [
          {
            key: 'execution_count',
            status: 'changed' as const,
            old: cell.executionCount.old,
            new: cell.executionCount.new,
          },
        ]
      : []),
  ];
  // Decided stays decided: a refusal marks only a change still open.
  const refused = decisions?.decided?.[cell.changeId] ? undefined : decisions?.refused?.[cell.changeId];
  return (
    <div
      role="group"
      aria-label={refusedLabel(row.label, refused)}
      tabIndex={-1}
      className={`nbd-change nbd-${cell.status}${refused ? ' nbd-refused' : ''}`}
      data-change-id={cell.changeId}
    >
      <div className="nbd-change-header">
        <span className="nbd-cell-no">Cell {row.number}</span>
        <span className="nbd-type">{cell.cellType}</span>
        <span className="nbd-what">{row.label.slice(row.label.indexOf(':') + 2)}</span>
        {refused && (
          <span className="nbd-refused-mark" title={refused.why}>
            {refused.words}
          </span>
        )}
        <span className="spacer" />
        {props.cellActions?.(cell)}
        {decisions && <Decide decisions={decisions} changeId={cell.changeId} />}
      </div>
      {source}
      {showOutputs && (
        <div className="nbd-output-pair">
          {cell.status !== 'added' && <Outputs cell={old} side="Before" />}
          {cell.status !== 'deleted' && <Outputs cell={now} side="After" />}
        </div>
      )}
      {showMetadata && <KeyChanges title="Metadata and fields" changes={details} />}
    </div>
  );
}

function UnchangedRun({ row, result }: { row: Extract<DiffRow, { kind: 'unchanged' }>; result: NotebookDiffResult }) {
  const [open, setOpen] = useState(false);
  return (
    <div className="nbd-unchanged">
      <button type="button" className="nbd-unchanged-toggle" aria-expanded={open} onClick={() => setOpen(!open)}>
        <span className="nbd-chevron" aria-hidden>
          {open ? '▾' : '▸'}
        </span>
        {unchangedLabel(row.cells.length)}
      </button>
      {open &&
        row.cells.map((cell) => (
          <div key={cell.changeId} className="nbd-same-cell">
            <span className="nbd-cell-no">Cell {(cell.newIndex ?? 0) + 1}</span>
            <PlainSource source={result.next[cell.newIndex ?? 0]?.source ?? ''} tone="same" />
          </div>
        ))}
    </div>
  );
}

/**
 * Mod+Enter accepts (keeps) the focused change, Mod+Backspace rejects (undoes) it: VS Code's keys for inline chat's
 * Accept / Discard and for Keep / Undo of chat edits.
 */
function decisionKey(e: KeyboardEvent): Decision | null {
  if (!(e.ctrlKey || e.metaKey) || e.altKey || e.shiftKey) return null;
  if (e.key === 'Enter') return 'accepted';
  if (e.key === 'Backspace') return 'rejected';
  return null;
}

/**
 * A notebook compared cell by cell: changed cells top to bottom (source as a Monaco diff, outputs before and
 * after, metadata behind a toggle), unchanged runs folded. F7 / Shift+F7 go to the next / previous change; with
 * decisions, Mod+Enter / Mod+Backspace decide the focused one.
 */
export function NotebookDiffView(props: NotebookDiffViewProps) {
  const { result, decisions } = props;
  const [showMetadata, setShowMetadata] = useState(false);
  const region = useRef<HTMLElement>(null);
  const rows = diffRows(result.diff.cells);
  const changes = rows.filter((r) => r.kind === 'change').length;
  const notebookChange = result.diff.notebook;

  // Capture: a source diff's Monaco would take F7 (its line diff navigation) and Mod+Enter / Mod+Backspace.
  const onKeyDownCapture = (e: KeyboardEvent) => {
    const groups = [...(region.current?.querySelectorAll<HTMLElement>('.nbd-change') ?? [])];
    const current = groups.findIndex((g) => g.contains(document.activeElement));
    const decision = decisionKey(e);
    if (decision) {
      const changeId = groups[current]?.dataset.changeId;
      if (!decisions || !changeId || decisions.decided?.[changeId]) return;
      e.preventDefault();
      e.stopPropagation();
      if (decision === 'accepted') decisions.onAccept(changeId);
      else decisions.onReject(changeId);
      // On to the next change still to decide, as VS Code's review does after Keep / Undo.
      const next = groups.slice(current + 1).find((g) => !decisions.decided?.[g.dataset.changeId ?? '']);
      next?.focus();
      next?.scrollIntoView({ block: 'nearest' });
      return;
    }
    if (e.key !== 'F7' || e.ctrlKey || e.altKey || e.metaKey) return;
    const next = stepChange(current, groups.length, e.shiftKey);
    if (next === null) return;
    e.preventDefault();
    e.stopPropagation();
    groups[next].focus();
    groups[next].scrollIntoView({ block: 'nearest' });
  };

  return (
    <section ref={region} className="nbd" aria-label="Notebook changes" onKeyDownCapture={onKeyDownCapture}>
      <div className="nbd-toolbar">
        <span className="nbd-count">
          {changes === 0 && !notebookChange
            ? 'No changes'
            : `${changes} changed cell${changes === 1 ? '' : 's'}${notebookChange ? ', notebook metadata' : ''}`}
        </span>
        <span className="spacer" />
        <button
          type="button"
          className="btn btn-small"
          aria-pressed={showMetadata}
          onClick={() => setShowMetadata(!showMetadata)}
        >
          {showMetadata ? 'Hide metadata' : 'Show metadata'}
        </button>
        {decisions &&
          allControls(decisions.mode).map(({ label, decision }) => (
            <button
              key={decision}
              type="button"
              className={`btn btn-small${decision === 'accepted' ? ' btn-primary' : ''}`}
              onClick={() =>
                decision === 'accepted'
                  ? decisions.onAcceptAll(result.diff.changeIds.filter((id) => !decisions.decided?.[id]))
                  : decisions.onRejectAll()
              }
            >
              {label}
            </button>
          ))}
      </div>
      <div className="nbd-cells">
        {notebookChange && (
          <div
            role="group"
            aria-label="Notebook: metadata changed"
            tabIndex={-1}
            className="nbd-change nbd-modified"
            data-change-id="notebook"
          >
            <div className="nbd-change-header">
              <span className="nbd-cell-no">Notebook</span>
              <span className="nbd-what">metadata changed</span>
              <span className="spacer" />
              {decisions && <Decide decisions={decisions} changeId="notebook" />}
            </div>
            {showMetadata && (
              <KeyChanges
                title="Metadata and fields"
                changes={[...notebookChange.metadata, ...notebookChange.fields]}
              />
            )}
          </div>
        )}
        {rows.map((row) =>
          row.kind === 'change' ? (
            <CellChange key={row.key} row={row} props={props} showMetadata={showMetadata} />
          ) : (
            <UnchangedRun key={row.key} row={row} result={result} />
          ),
        )}
      </div>
    </section>
  );
}

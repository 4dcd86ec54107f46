import { Fragment } from 'react';
import { useStore } from '../base';
import { useCommands } from '../commands';
import { useOpenFilesStore, useReveals } from '../editor';
import { useLanguageClient } from '../language';
import { useCellNumbers, type CellNumbers } from '../notebook';
import { ErrorIcon, FileIcon, Icon, WarningIcon, XIcon } from '../ui';
import { countProblems, listProblems, useProblemsPanel, type Problem } from './problems-store';
import './problems.css';

/** "Cell 3, " for a problem in a notebook's cell (the number its view shows), else nothing. */
function cellPlace(numbers: CellNumbers, problem: Problem): string {
  if (problem.cell === undefined) return '';
  const number = numbers.numberOf(problem.path, problem.cell);
  return number === null ? 'Cell, ' : `Cell ${number}, `;
}

/** Where a problem's cell stands in its notebook (stable sort keeps the lines in order within a cell). */
function cellOrder(numbers: CellNumbers, problem: Problem): number {
  return problem.cell === undefined ? 0 : (numbers.numberOf(problem.path, problem.cell) ?? Number.MAX_SAFE_INTEGER);
}

const SEVERITY_LABEL = { error: 'Error', warning: 'Warning', information: 'Info', hint: 'Hint' } as const;

function SeverityIcon({ severity }: { severity: Problem['severity'] }) {
  if (severity === 'error') return <ErrorIcon size={14} />;
  if (severity === 'warning') return <WarningIcon size={14} />;
  return <Icon name="info" size={14} />;
}

/** The Problems panel under the editor: every diagnostic by file; a click opens the place. */
export function ProblemsPanel() {
  const problemsPanel = useProblemsPanel();
  const open = useStore(problemsPanel, (s) => s.open);
  const diagnostics = useStore(useLanguageClient(), (s) => s.diagnostics);
  // Cells inserted or moved above a problem renumber it though its diagnostic stays the same.
  const cellNumbers = useCellNumbers();
  useStore(cellNumbers, (s) => s.version);
  const openFiles = useOpenFilesStore();
  const reveals = useReveals();
  useCommands([
    {
      id: 'problems.toggle',
      title: 'Toggle Problems',
      category: 'View',
      keys: 'Mod+Shift+M',
      run: () => problemsPanel.toggle(),
    },
  ]);
  if (!open) return null;
  // A notebook's problems in the order of its cells, then by line.
  const files = listProblems(diagnostics).map((file) =>
    file.problems.some((p) => p.cell !== undefined)
      ? { ...file, problems: [...file.problems].sort((a, b) => cellOrder(cellNumbers, a) - cellOrder(cellNumbers, b)) }
      : file,
  );
  const show = (problem: Problem) => {
    const { start, end } = problem.range;
    reveals.request(problem.path, {
      line: start.line + 1,
      start: start.character,
      end: end.line === start.line ? end.character : start.character,
      // A notebook's problem opens its cell at the line.
      ...(problem.cell !== undefined ? { cellId: problem.cell } : {}),
    });
    void openFiles.open(problem.path);
  };
  return (
    <section className="problems-panel" role="region" aria-label="Problems">
      <div className="problems-bar">
        <span className="problems-title">Problems</span>
        <button
          type="button"
          className="icon-btn"
          aria-label="Hide Problems"
          title="Hide (Ctrl+Shift+M)"
          onClick={() => problemsPanel.hide()}
        >
          <XIcon />
        </button>
      </div>
      <div className="problems-list" role="tree" aria-label="Problems by file">
        {files.length === 0 && <div className="problems-empty">No problems have been detected in the workspace.</div>}
        {files.map((file) => (
          // Flat rows with levels (as Find in Files): a file's row names only itself, not the problems under it.
          <Fragment key={file.path}>
            <div
              role="treeitem"
              aria-level={1}
              aria-expanded="true"
              aria-label={file.path}
              className="problems-file-row"
            >
              <FileIcon name={file.path.split('/').pop() ?? file.path} />
              <span className="problems-file-path">{file.path}</span>
              {/* Counts, sources and places are CSS content: decoration the row's name says in words (WCAG 2.5.3). */}
              <span className="problems-file-count" aria-hidden data-text={file.problems.length} />
            </div>
            {file.problems.map((problem, i) => (
              <button
                key={i}
                type="button"
                role="treeitem"
                aria-level={2}
                className={`problems-row problems-${problem.severity}`}
                aria-label={`${SEVERITY_LABEL[problem.severity]}: ${problem.message}, ${file.path} ${cellPlace(cellNumbers, problem)}line ${problem.range.start.line + 1}`}
                onClick={() => show(problem)}
              >
                <SeverityIcon severity={problem.severity} />
                <span className="problems-message">{problem.message}</span>
                <span
                  className="problems-source"
                  aria-hidden
                  data-text={`${problem.source ?? ''}${problem.code ? `(${problem.code})` : ''}`}
                />
                <span
                  className="problems-place"
                  aria-hidden
                  data-text={`[${cellPlace(cellNumbers, problem)}Ln ${problem.range.start.line + 1}, Col ${problem.range.start.character + 1}]`}
                />
              </button>
            ))}
          </Fragment>
        ))}
      </div>
    </section>
  );
}

/** The status area's counts; a click toggles the panel. */
export function ProblemsStatusItem() {
  const problemsPanel = useProblemsPanel();
  const diagnostics = useStore(useLanguageClient(), (s) => s.diagnostics);
  const { errors, warnings } = countProblems(diagnostics);
  const label = `${errors} ${errors === 1 ? 'error' : 'errors'}, ${warnings} ${warnings === 1 ? 'warning' : 'warnings'}`;
  return (
    // The name holds the counts as shown ("0 0", WCAG 2.5.3: a speech user says what they see); the words
    // follow as its description (the title).
    <button
      type="button"
      className="status-item status-button problems-status"
      aria-label={`Problems ${errors} ${warnings}`}
      title={`Problems: ${label} (Ctrl+Shift+M)`}
      onClick={() => problemsPanel.toggle()}
    >
      {/* The spaces keep the counts apart in its text ("0 0", not "00"), as they are on screen. */}
      <ErrorIcon size={14} /> {errors} <WarningIcon size={14} /> {warnings}
    </button>
  );
}

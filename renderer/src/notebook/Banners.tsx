import { lazy, Suspense, useState } from 'react';
import { nameOf } from '../../../shared/paths';
import { SaveAs, SideBySideToggle, useDiffSideBySide } from '../editor';
import { DiffIcon } from '../ui';
import type { NotebookController } from './notebook-controller';
import type { NotebookSessionState } from './notebook-session';

const INSTALL_HINT =
  'You can still edit and save this notebook. To use a particular Jupyter, set jupyter.command (a local jupyter) or ' +
  'jupyter.url (a running server) in .kiln/config.yaml and restart Kiln.';

// Loaded when first asked for: Monaco's diff editors and the diff view stay out of the notebook's first paint.
const NotebookCompare = lazy(() => import('../notebook-diff').then((m) => ({ default: m.NotebookCompare })));

/** The changed-on-disk compare: the file on disk ↔ the open notebook with the operator's changes, as cells. */
function DiskCompare({ path }: { path: string }) {
  const sideBySide = useDiffSideBySide();
  const name = nameOf(path);
  return (
    <div className="compare nb-disk-compare">
      <div className="compare-header">
        <DiffIcon />
        <span>{name}: on disk ↔ your changes</span>
        <span className="spacer" />
        <SideBySideToggle />
      </div>
      <Suspense fallback={<div className="nbd-loading">Comparing cells…</div>}>
        <NotebookCompare
          base={{ file: path }}
          next={{ path }}
          sideBySide={sideBySide}
          oldLabel="on disk"
          newLabel="with your changes"
          fallback={(reason) => <div className="notice notice-error">Cannot compare: {reason}</div>}
        />
      </Suspense>
    </div>
  );
}

/** What stands between the toolbar and the cells: a disk conflict, Jupyter or kernel trouble, load warnings. */
export function Banners({ notebook, state }: { notebook: NotebookController; state: NotebookSessionState }) {
  const { session } = notebook;
  const noJupyter = state.jupyterError?.code === 'E_NO_JUPYTER';
  const dead = state.kernel.status === 'dead';
  const [comparing, setComparing] = useState(false);
  const compare = comparing && Boolean(state.conflict) && !state.conflictDeleted;
  return (
    <>
      {state.conflict && (
        <div className="conflict-bar" role="alert" aria-label="Changed on disk">
          <span className="conflict-icon" aria-hidden>
            !
          </span>
          <span className="conflict-text">{state.conflict}</span>
          {state.conflictDeleted && <SaveAs path={session.path} onSave={notebook.saveAs} />}
          {!state.conflictDeleted && (
            <button type="button" className="btn btn-small" onClick={() => setComparing(!compare)}>
              {compare ? 'Close Compare' : 'Compare'}
            </button>
          )}
          <button type="button" className="btn btn-small btn-primary" onClick={() => void notebook.save(true)}>
            Overwrite
          </button>
          <button type="button" className="btn btn-small" onClick={notebook.revert}>
            Reload
          </button>
        </div>
      )}
      {compare && <DiskCompare path={session.path} />}
      {noJupyter && (
        <div role="alert" className="nb-alert nb-alert-warn nb-banner">
          <strong>Jupyter is not available, so cells can’t run.</strong>
          <div className="nb-alert-detail">{state.jupyterError?.message}</div>
          <div className="nb-alert-detail nb-dim">{INSTALL_HINT}</div>
          <div className="nb-alert-actions">
            <button type="button" className="btn btn-small" onClick={() => session.dismissJupyterError()}>
              Dismiss
            </button>
          </div>
        </div>
      )}
      {!noJupyter && dead && (
        <div role="alert" className="nb-alert nb-alert-error nb-banner">
          {state.kernel.message ? (
            <strong>{state.kernel.message}</strong>
          ) : (
            <>
              <strong>The kernel died.</strong> The notebook and its outputs are kept; restart the kernel to run cells
              again.
            </>
          )}
          <div className="nb-alert-actions">
            <button type="button" className="btn btn-small btn-primary" onClick={() => void session.restart()}>
              Start a new kernel
            </button>
          </div>
        </div>
      )}
      {!noJupyter && !dead && state.jupyterError && (
        <div role="alert" className="nb-alert nb-alert-error nb-banner">
          <span>{state.jupyterError.message}</span>
          <button type="button" className="btn btn-small" onClick={() => session.dismissJupyterError()}>
            Dismiss
          </button>
        </div>
      )}
      {state.warnings.length > 0 && (
        <div className="info-bar nb-warnings" role="note">
          {state.warnings.join(' ')}
        </div>
      )}
    </>
  );
}

/** A file that is not a valid notebook: why, and the ways on (it is never overwritten). */
export function CannotOpen({
  name,
  message,
  onOpenAsText,
  onRetry,
}: {
  name: string;
  message: string;
  onOpenAsText: () => void;
  onRetry: () => void;
}) {
  return (
    <div className="nb-error-view">
      <div role="alert" className="nb-alert nb-alert-error">
        <strong>{name} can’t be opened as a notebook.</strong>
        <div className="nb-alert-detail">{message}</div>
        <div className="nb-alert-detail nb-dim">Kiln never overwrites it. Open it as text to see or fix the JSON.</div>
        <div className="nb-alert-actions">
          <button type="button" className="btn btn-small btn-primary" onClick={onOpenAsText}>
            Open as text
          </button>
          <button type="button" className="btn btn-small" onClick={onRetry}>
            Try again
          </button>
        </div>
      </div>
    </div>
  );
}

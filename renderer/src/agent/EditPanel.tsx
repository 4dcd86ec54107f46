import { useCallback, useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { FILE_EDITING_SCOPE_HINT, FILE_EDITING_SNIPPET, type ConfigIssue } from '../../../shared/contract';
import { KilnError } from '../../../shared/errors';
import { useOpenFiles, useOpenFilesStore, type OpenFilesStore } from '../editor';
import { FileIcon, messageOf, useAsk, usePrefs } from '../ui';
import { useEditAssistant, useEditAssistantStore, type EditAssistantStore, type ReviewState, type SessionView } from './edit-assistant-store';
import { CheckIcon, SendIcon, SparkIcon, StopIcon, TrashIcon, WarningIcon, XIcon } from './icons';
import { Transcript } from './Transcript';
import './edit-assistant.css';

/**
 * The edit assistant: a single-file helper scoped to the active editor tab. The agent proposes the
 * whole file; the operator reviews the diff in the centre and accepts (the main process writes) or rejects.
 */
export function EditPanel() {
  const store = useEditAssistantStore();
  const { config, models, sessions, reviews } = useEditAssistant();
  const { files, active } = useOpenFiles();
  const activeFile = files.find((f) => f.path === active);
  const path = activeFile?.path ?? null;
  const enabled = config?.fileEditing.enabled ?? false;
  const view = path ? sessions[path] : undefined;
  const review = path ? reviews[path] : undefined;

  useEffect(() => {
    if (path && enabled && activeFile?.status === 'ready') void store.open(path);
  }, [store, path, enabled, activeFile?.status]);

  return (
    <aside className="edit-assistant" aria-label="Edit assistant">
      <header className="ea-header">
        <SparkIcon />
        <span className="ea-title">Edit assistant</span>
        {path && enabled && (
          <span className="ea-scope" title={path}>
            <FileIcon name={activeFile!.name} />
            <span>{activeFile!.name}</span>
          </span>
        )}
        <span className="spacer" />
        <button
          type="button"
          className="ea-icon-btn"
          title="Clear: delete this file's session"
          disabled={!path || !enabled || !view}
          onClick={() => path && void store.clear(path)}
        >
          <TrashIcon />
          <span>Clear</span>
        </button>
      </header>

      {config?.error && <ConfigErrorAlert issue={config.error} />}

      {!config ? (
        <div className="ea-body ea-centered ea-dim">Loading…</div>
      ) : !enabled ? (
        <EmptyState />
      ) : !path ? (
        <div className="ea-body ea-centered">
          <SparkIcon size={22} />
          <p>Open a file to edit it with the assistant.</p>
          <p className="ea-dim">The assistant works on the active tab, one file at a time.</p>
        </div>
      ) : view?.status === 'blocked' && view.problem ? (
        <Blocked view={view} onConfirm={() => void store.open(view.path, true)} />
      ) : (
        <>
          {view?.snapshot?.warnings.map((w) => (
            <div key={w.code} className="ea-banner ea-banner-warn" role="alert">
              <WarningIcon />
              <span>{w.message}</span>
            </div>
          ))}
          <Transcript
            entries={view?.transcript ?? []}
            runState={view?.runState ?? 'idle'}
            reviewingId={review?.proposalId ?? null}
            onOpenProposal={(id) => path && void store.review(path, id)}
          />
          {review && view && <ReviewBar store={store} view={view} review={review} />}
        </>
      )}

      <Composer
        store={store}
        path={enabled && view?.status === 'ready' ? path : null}
        view={view}
        models={models.map((m) => m.alias)}
        defaultModel={config?.fileEditing.model ?? null}
        placeholder={
          !enabled
            ? 'Set file_editing.model in .kiln/config.yaml to start'
            : !path
              ? 'Open a file first'
              : view?.status === 'blocked'
                ? 'Not available for this file yet'
                : `Ask for a change to ${activeFile?.name}…`
        }
      />
    </aside>
  );
}

function ConfigErrorAlert({ issue }: { issue: ConfigIssue }) {
  const where = `${issue.file}${issue.line ? `:${issue.line}` : ''}`;
  return (
    <div className="ea-banner ea-banner-error" role="alert" aria-label="Config error">
      <WarningIcon />
      <div>
        <div className="ea-banner-title">
          Config error in <code>{where}</code>
        </div>
        <div>
          {issue.key && <code>{issue.key}</code>}
          {issue.key && ': '}
          {issue.message}
        </div>
        <div className="ea-dim">The last valid config keeps running.</div>
      </div>
    </div>
  );
}

function EmptyState() {
  return (
    <div className="ea-body ea-empty">
      <div className="ea-empty-mark"><SparkIcon size={22} /></div>
      <h3>The edit assistant is off</h3>
      <p>
        Name a model for file editing in <code>.kiln/config.yaml</code>:
      </p>
      <pre className="ea-snippet" aria-label="Config snippet">{FILE_EDITING_SNIPPET}</pre>
      <p className="ea-hint">{FILE_EDITING_SCOPE_HINT}</p>
    </div>
  );
}

function Blocked({ view, onConfirm }: { view: SessionView; onConfirm: () => void }) {
  const problem = view.problem!;
  return (
    <div className="ea-body">
      <div className={`ea-banner ${problem.confirmable ? 'ea-banner-warn' : 'ea-banner-error'}`} role="alert">
        <WarningIcon />
        <div>
          <div className="ea-banner-title">{problem.confirmable ? 'Large file' : 'Not available for this file'}</div>
          <div>{problem.message}</div>
          {problem.confirmable && (
            <button type="button" className="btn btn-small ea-banner-btn" onClick={onConfirm}>
              Continue anyway
            </button>
          )}
        </div>
      </div>
    </div>
  );
}

/** Accept / Reject for the proposal under review, and the diff layout switch. */
function ReviewBar({ store, view, review }: { store: EditAssistantStore; view: SessionView; review: ReviewState }) {
  const openFiles = useOpenFilesStore();
  const ask = useAsk();
  const { prefs, setPref } = usePrefs();
  const sideBySide = prefs?.diffSideBySide ?? true;
  const [busy, setBusy] = useState(false);
  const summary = review.summary ?? view.snapshot?.proposals.find((p) => p.id === review.proposalId) ?? null;
  const decided = summary?.status === 'accepted';
  const path = view.path;

  const accept = useCallback(
    async (overwrite: boolean) => {
      setBusy(true);
      try {
        await store.accept(path, review.proposalId, overwrite);
        await reloadEditor(openFiles, path);
      } catch (err) {
        if (err instanceof KilnError && err.code === 'E_CHANGED_ON_DISK') {
          const choice = await ask({
            title: `${path.split('/').pop()} changed on disk`,
            message:
              'The file on disk no longer matches the version this proposal was made against. Compare the disk with the proposal, overwrite the disk with the proposal, or cancel.',
            buttons: [
              { label: 'Compare', value: 'compare', primary: true },
              { label: 'Overwrite', value: 'overwrite', danger: true },
              { label: 'Cancel', value: 'cancel' },
            ],
            cancelValue: 'cancel',
          });
          if (choice === 'compare') await store.compareWithDisk(path, review.proposalId);
          else if (choice === 'overwrite') {
            try {
              await store.accept(path, review.proposalId, true);
              await reloadEditor(openFiles, path);
            } catch (again) {
              store.addLocalError(path, again instanceof KilnError ? again.code : 'E_INTERNAL', messageOf(again));
            }
          }
        } else {
          store.addLocalError(path, err instanceof KilnError ? err.code : 'E_INTERNAL', messageOf(err));
        }
      } finally {
        setBusy(false);
      }
    },
    [store, path, review.proposalId, openFiles, ask],
  );

  const reject = async () => {
    setBusy(true);
    try {
      await store.reject(path, review.proposalId);
    } catch (err) {
      store.addLocalError(path, err instanceof KilnError ? err.code : 'E_INTERNAL', messageOf(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="ea-review" aria-label="Proposal under review" role="group">
      <div className="ea-review-info">
        {review.against === 'disk' ? (
          <span className="ea-review-title ea-warn-text">
            <WarningIcon /> Disk ↔ proposal
          </span>
        ) : (
          <span className="ea-review-title">Proposal</span>
        )}
        {summary && (
          <span className="ea-chip-counts">
            <span className="ea-added">+{summary.linesAdded}</span> <span className="ea-removed">−{summary.linesRemoved}</span>
          </span>
        )}
        {summary && review.against === 'baseline' && <span className={`ea-pill status-${summary.status}`}>{summary.status}</span>}
        <span className="spacer" />
        <label className="ea-switch">
          <button
            type="button"
            role="switch"
            aria-checked={sideBySide}
            aria-label="Side by side"
            className="ea-switch-track"
            onClick={() => setPref('diffSideBySide', !sideBySide)}
          >
            <span className="ea-switch-thumb" />
          </button>
          <span aria-hidden>Side by side</span>
        </label>
      </div>
      <div className="ea-review-actions">
        {review.against === 'disk' ? (
          <>
            <button type="button" className="btn btn-small" onClick={() => void store.review(path, review.proposalId)}>
              Back to proposal
            </button>
            <span className="spacer" />
            <button type="button" className="btn btn-small ea-btn-reject" disabled={busy || decided || summary?.status === 'rejected'} onClick={() => void reject()}>
              <XIcon /> Reject
            </button>
            {/* Accept would only refuse again: Overwrite is the way forward from a comparison. */}
            <button type="button" className="btn btn-small btn-danger" disabled={busy || decided} onClick={() => void accept(true)}>
              Overwrite
            </button>
          </>
        ) : (
          <>
            <span className="spacer" />
            <button type="button" className="btn btn-small ea-btn-reject" disabled={busy || decided || summary?.status === 'rejected'} onClick={() => void reject()}>
              <XIcon /> Reject
            </button>
            <button type="button" className="btn btn-small btn-primary ea-btn-accept" disabled={busy || decided} onClick={() => void accept(false)}>
              <CheckIcon /> Accept
            </button>
          </>
        )}
      </div>
    </div>
  );
}

/** The editor follows the accepted write (unsaved edits are left to the editor's own conflict bar). */
async function reloadEditor(openFiles: OpenFilesStore, path: string): Promise<void> {
  const file = openFiles.get(path);
  if (file && !file.dirty) await openFiles.reload(path);
}

interface ComposerProps {
  store: EditAssistantStore;
  /** Null while sending is impossible (not configured, no file, session not open). */
  path: string | null;
  view: SessionView | undefined;
  models: string[];
  defaultModel: string | null;
  placeholder: string;
}

function Composer({ store, path, view, models, defaultModel, placeholder }: ComposerProps) {
  const [text, setText] = useState('');
  const input = useRef<HTMLTextAreaElement>(null);
  const running = view?.runState === 'running';
  const canSend = Boolean(path) && !running && text.trim().length > 0;
  const override = view?.snapshot?.modelOverride ?? null;

  const send = () => {
    if (!canSend || !path) return;
    const message = text.trim();
    setText('');
    void store.send(path, message);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      send();
    }
  };

  // Grow with the text up to a few lines.
  useEffect(() => {
    const el = input.current;
    if (!el) return;
    el.style.height = 'auto';
    el.style.height = `${Math.min(el.scrollHeight, 160)}px`;
  }, [text]);

  return (
    <div className={`ea-composer${path ? '' : ' disabled'}`}>
      <textarea
        ref={input}
        aria-label="Message"
        rows={2}
        value={text}
        disabled={!path}
        placeholder={placeholder}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={onKeyDown}
      />
      <div className="ea-composer-bar">
        <select
          className="ea-model"
          aria-label="Model"
          title="Model for this file's session"
          disabled={!path || running}
          value={override ?? ''}
          onChange={(e) => path && void store.setModel(path, e.target.value || null)}
        >
          <option value="">{defaultModel ? `Default · ${defaultModel}` : 'Default model'}</option>
          {models.map((alias) => (
            <option key={alias} value={alias}>
              {alias}
            </option>
          ))}
        </select>
        <span className="spacer" />
        <button type="button" className="ea-stop" disabled={!running} onClick={() => path && void store.stop(path)} title="Stop the run">
          <StopIcon /> Stop
        </button>
        <button type="button" className="ea-send" disabled={!canSend} onClick={send} title="Send (Enter)">
          <SendIcon /> Send
        </button>
      </div>
    </div>
  );
}

import { useCallback, useEffect, useState } from 'react';
import { FILE_EDITING_SCOPE_HINT, FILE_EDITING_SNIPPET } from '../../../shared/contract';
import { useOpenFiles, useOpenFilesStore, type OpenFilesStore } from '../editor';
import { ChatHeader, Composer, ConfigErrorBanner, ModelsWithheld, SetupNeeded } from '../chat';
import { PromptWithheld, useWorkspaceTrust } from '../trust';
import { CheckIcon, FileIcon, SparkIcon, WarningIcon, XIcon, usePrefs } from '../ui';
import {
  useEditAssistant,
  useEditAssistantStore,
  type EditAssistantStore,
  type ReviewState,
  type SessionView,
} from './edit-assistant-store';
import { PROPOSAL_STATUS_SHOWN } from './proposal-status';
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
  const trust = useWorkspaceTrust();

  useEffect(() => {
    if (path && enabled && activeFile?.status === 'ready') void store.open(path);
  }, [store, path, enabled, activeFile?.status]);

  return (
    <aside className="edit-assistant" aria-label="Edit assistant">
      <ChatHeader
        mark={<SparkIcon />}
        title="Edit assistant"
        clearTitle="Clear: delete this file's session"
        clearDisabled={!path || !enabled || !view}
        onClear={() => path && void store.clear(path)}
      >
        {path && enabled && (
          <span className="ea-scope" title={path}>
            <FileIcon name={activeFile!.name} />
            <span>{activeFile!.name}</span>
          </span>
        )}
      </ChatHeader>

      {config?.error && <ConfigErrorBanner issue={config.error} />}
      <PromptWithheld configKey="file_editing.system_prompt" />

      {!config ? (
        <div className="chat-body ea-centered chat-dim">Loading…</div>
      ) : !enabled && trust.modelsWithheld ? (
        <ModelsWithheld
          mark={<SparkIcon size={22} />}
          subject="The edit assistant"
          onTrust={() => void trust.askToTrust()}
        />
      ) : !enabled ? (
        <SetupNeeded
          mark={<SparkIcon size={22} />}
          title="The edit assistant is off"
          intro={
            <>
              Name a model for file editing in <code>.kiln/config.yaml</code>:
            </>
          }
          snippet={FILE_EDITING_SNIPPET}
          hint={FILE_EDITING_SCOPE_HINT}
        />
      ) : !path ? (
        <div className="chat-body ea-centered">
          <SparkIcon size={22} />
          <p>Open a file to edit it with the assistant.</p>
          <p className="chat-dim">The assistant works on the active tab, one file at a time.</p>
        </div>
      ) : view?.status === 'blocked' && view.problem ? (
        <Blocked view={view} onConfirm={() => void store.continueLarge(view.path)} />
      ) : (
        <>
          {view?.snapshot?.warnings.map((w) => (
            <div key={w.code} className="chat-banner chat-banner-warn" role="alert">
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

      <EditComposer
        store={store}
        path={enabled && view?.status === 'ready' ? path : null}
        view={view}
        models={models.map((m) => m.alias)}
        defaultModel={config?.fileEditing.model ?? null}
        placeholder={
          !enabled
            ? trust.modelsWithheld
              ? 'Trust this folder to use its models'
              : 'Set file_editing.model in .kiln/config.yaml to start'
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

function Blocked({ view, onConfirm }: { view: SessionView; onConfirm: () => void }) {
  const problem = view.problem!;
  return (
    <div className="chat-body">
      <div className={`chat-banner ${problem.confirmable ? 'chat-banner-warn' : 'chat-banner-error'}`} role="alert">
        <WarningIcon />
        <div>
          <div className="chat-banner-title">{problem.confirmable ? 'Large file' : 'Not available for this file'}</div>
          <div>{problem.message}</div>
          {problem.confirmable && (
            <button type="button" className="btn btn-small chat-banner-btn" onClick={onConfirm}>
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
  const { prefs, setPref } = usePrefs();
  const sideBySide = prefs?.diffSideBySide ?? true;
  const [busy, setBusy] = useState(false);
  const summary = review.summary ?? view.snapshot?.proposals.find((p) => p.id === review.proposalId) ?? null;
  // Decided once: an accepted or rejected proposal offers neither again.
  const decided = summary?.status === 'accepted' || summary?.status === 'rejected';
  const path = view.path;
  // A notebook proposal is decided cell by cell in the review itself.
  const notebook = summary ? Boolean(summary.cells) : path.toLowerCase().endsWith('.ipynb');

  const accept = useCallback(async () => {
    setBusy(true);
    try {
      if (await store.accept(path, review.proposalId)) await reloadEditor(openFiles, path);
    } catch (err) {
      store.addLocalError(path, err);
    } finally {
      setBusy(false);
    }
  }, [store, path, review.proposalId, openFiles]);

  const reject = async () => {
    setBusy(true);
    try {
      await store.reject(path, review.proposalId);
    } catch (err) {
      store.addLocalError(path, err);
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
            <span className="ea-added">+{summary.linesAdded}</span>{' '}
            <span className="ea-removed">−{summary.linesRemoved}</span>
          </span>
        )}
        {summary && review.against === 'baseline' && (
          <span className={`ea-pill status-${summary.status}`}>{PROPOSAL_STATUS_SHOWN[summary.status]}</span>
        )}
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
      {review.stale ? (
        <div className="chat-banner chat-banner-warn ea-stale" role="alert">
          <WarningIcon />
          <div>
            <div>{review.stale} Review the proposal against the file as it is now, or discard it.</div>
            <div className="ea-review-actions">
              <button
                type="button"
                className="btn btn-small btn-primary"
                disabled={busy}
                onClick={() => void store.reviewAgainstDisk(path, review.proposalId)}
              >
                {notebook ? 'Review against current notebook' : 'Review against current file'}
              </button>
              <button type="button" className="btn btn-small" disabled={busy} onClick={() => void reject()}>
                Discard
              </button>
            </div>
          </div>
        </div>
      ) : notebook ? (
        <div className="ea-review-hint">Accept or reject each cell in the review.</div>
      ) : (
        <div className="ea-review-actions">
          <span className="spacer" />
          <button
            type="button"
            className="btn btn-small ea-btn-reject"
            disabled={busy || decided}
            onClick={() => void reject()}
          >
            <XIcon /> Reject
          </button>
          <button
            type="button"
            className="btn btn-small btn-primary ea-btn-accept"
            disabled={busy || decided || review.original === null}
            onClick={() => void accept()}
          >
            <CheckIcon /> Accept
          </button>
        </div>
      )}
    </div>
  );
}

/** The editor follows the accepted write (unsaved edits are left to the editor's own conflict bar). */
async function reloadEditor(openFiles: OpenFilesStore, path: string): Promise<void> {
  const file = openFiles.get(path);
  if (file && !file.dirty) await openFiles.reload(path);
}

interface EditComposerProps {
  store: EditAssistantStore;
  /** Null while sending is impossible (not configured, no file, session not open). */
  path: string | null;
  view: SessionView | undefined;
  models: string[];
  defaultModel: string | null;
  placeholder: string;
}

/** The shared composer with this file's model picker; one run at a time, so Send waits for the run to end. */
function EditComposer({ store, path, view, models, defaultModel, placeholder }: EditComposerProps) {
  const running = view?.runState === 'running';
  const override = view?.snapshot?.modelOverride ?? null;
  return (
    <Composer
      disabled={!path}
      running={running}
      placeholder={placeholder}
      sendTitle="Send (Enter)"
      stopTitle="Stop the run"
      onSend={(message) => path && void store.send(path, message)}
      onStop={() => path && void store.stop(path)}
    >
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
    </Composer>
  );
}

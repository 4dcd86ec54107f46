import type { ReactNode } from 'react';
import type { ConfigIssue } from '../../../shared/contract';
import { TrashIcon, WarningIcon } from '../ui';

interface ChatHeaderProps {
  /** The panel's mark, drawn in the agent colour. */
  mark: ReactNode;
  title: string;
  /** Beside the title: what the panel works on (a file, a model). */
  children?: ReactNode;
  clearTitle: string;
  clearDisabled: boolean;
  onClear: () => void;
}

/** A chat panel's title row with its Clear button. */
export function ChatHeader({ mark, title, children, clearTitle, clearDisabled, onClear }: ChatHeaderProps) {
  return (
    <header className="chat-header">
      {mark}
      <span className="chat-title">{title}</span>
      {children}
      <span className="spacer" />
      <button type="button" className="chat-icon-btn" title={clearTitle} disabled={clearDisabled} onClick={onClear}>
        <TrashIcon />
        <span>Clear</span>
      </button>
    </header>
  );
}

/** The config in .kiln/config.yaml did not load: where and why, while the last valid one keeps running. */
export function ConfigErrorBanner({ issue }: { issue: ConfigIssue }) {
  const where = `${issue.file}${issue.line ? `:${issue.line}` : ''}`;
  return (
    <div className="chat-banner chat-banner-error" role="alert" aria-label="Config error">
      <WarningIcon />
      <div>
        <div className="chat-banner-title">
          Config error in <code>{where}</code>
        </div>
        <div>
          {issue.key && <code>{issue.key}</code>}
          {issue.key && ': '}
          {issue.message}
        </div>
        <div className="chat-dim">The last valid config keeps running.</div>
      </div>
    </div>
  );
}

interface SetupNeededProps {
  mark: ReactNode;
  title: string;
  /** What to add to the config, before the snippet. */
  intro: ReactNode;
  snippet: string;
  hint: ReactNode;
}

/** The panel before its config block exists: the snippet to add, and what the panel is for. */
export function SetupNeeded({ mark, title, intro, snippet, hint }: SetupNeededProps) {
  return (
    <div className="chat-body chat-setup">
      <div className="chat-setup-mark">{mark}</div>
      <h3>{title}</h3>
      <p>{intro}</p>
      <pre className="chat-snippet" aria-label="Config snippet">
        {snippet}
      </pre>
      <p className="chat-hint">{hint}</p>
    </div>
  );
}

interface ModelsWithheldProps {
  mark: ReactNode;
  /** What waits for trust, e.g. "The agent". */
  subject: string;
  onTrust: () => void;
}

/** In place of the setup hint while the untrusted project's own models are withheld: says so and offers trust. */
export function ModelsWithheld({ mark, subject, onTrust }: ModelsWithheldProps) {
  return (
    <div className="chat-body chat-setup" role="region" aria-label="Models withheld">
      <div className="chat-setup-mark">{mark}</div>
      <h3>{subject} waits for trust</h3>
      <p>
        This folder&apos;s <code>.kiln/config.yaml</code> names its own models; they are withheld until you trust the
        folder, so their keys are not sent to the servers it names.
      </p>
      <p className="chat-hint">Until then only the models of your own config are used.</p>
      <div>
        <button type="button" className="btn btn-primary chat-banner-btn" onClick={onTrust}>
          Trust this folder…
        </button>
      </div>
    </div>
  );
}

import { useState } from 'react';
import { useStore } from '../base';
import { useLanguageClient } from './language-client';

const LABEL: Record<string, string> = {
  starting: 'Python: starting…',
  ready: 'Python',
  restarting: 'Python: restarting…',
  failed: 'Python: server failed',
  idle: 'Python',
  off: 'Python: off',
};

/** The status area's language server item: its state, and the why (interpreter, restricted mode) on hover. */
export function LanguageStatusItem() {
  const status = useStore(useLanguageClient(), (s) => s.status);
  if (!status || status.state === 'idle') return null;
  const restricted = status.restricted && status.state === 'ready';
  const shown = `${LABEL[status.state]}${restricted ? ' (restricted)' : ''}`;
  return (
    // The name starts with what it shows (WCAG 2.5.3), then says which server and why.
    <span
      className={`status-item language-status language-status-${status.state}`}
      role="status"
      aria-label={`${shown}, language server: ${status.message}`}
      title={status.message}
      data-state={status.state}
    >
      {shown}
    </span>
  );
}

/**
 * One line along the bottom while the server is restarting after a crash or has given up: what happened and
 * what Kiln does about it. Dismissable; it comes back on the next crash.
 */
export function LanguageStatusLine() {
  const status = useStore(useLanguageClient(), (s) => s.status);
  const [dismissed, setDismissed] = useState<string | null>(null);
  if (!status || (status.state !== 'restarting' && status.state !== 'failed')) return null;
  if (dismissed === status.message) return null;
  return (
    <div
      className={`status-line${status.state === 'failed' ? ' status-line-error' : ''}`}
      role="status"
      aria-label="Python language server"
    >
      <span className="status-line-text">{status.message}</span>
      <button
        type="button"
        className="status-line-close"
        aria-label="Dismiss"
        onClick={() => setDismissed(status.message)}
      >
        ×
      </button>
    </div>
  );
}

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
  return (
    <span
      className={`status-item language-status language-status-${status.state}`}
      role="status"
      aria-label={`Python language server: ${status.message}`}
      title={status.message}
      data-state={status.state}
    >
      {LABEL[status.state]}
      {restricted ? ' (restricted)' : ''}
    </span>
  );
}

import type { InspectResult } from '../../../shared/contract';
import { joinMultiline } from '../../../shared/contract';
import { AnsiText, Markdown } from './Outputs';

/** What the Shift+Tab panel shows: waiting, the kernel's answer, or why there is none. */
export type InspectView =
  | { kind: 'waiting' }
  | { kind: 'answer'; result: InspectResult; detailLevel: 0 | 1 }
  | { kind: 'failed'; message: string };

/** The kernel's docstring for the name at the cursor: its markdown when it sends one, else its ANSI text. */
export function InspectPanel({ view }: { view: InspectView }) {
  let body;
  if (view.kind === 'waiting') body = <p className="nb-inspect-note">Asking the kernel…</p>;
  else if (view.kind === 'failed') body = <p className="nb-inspect-note">{view.message}</p>;
  else {
    const { result } = view;
    if (result.status === 'busy')
      body = <p className="nb-inspect-note">Kernel busy: it is running a cell. Try again when it is idle.</p>;
    else if (result.status !== 'ok') body = <p className="nb-inspect-note">No kernel is running.</p>;
    else if (!result.found) body = <p className="nb-inspect-note">The kernel knows nothing about this name.</p>;
    else {
      const markdown = result.data['text/markdown'];
      body =
        markdown !== undefined ? (
          <Markdown source={joinMultiline(markdown as string | string[])} />
        ) : (
          <pre className="nb-inspect-text">
            <AnsiText text={joinMultiline(result.data['text/plain'] as string | string[] | undefined)} />
          </pre>
        );
    }
  }
  return (
    <div className="nb-inspect" role="tooltip" aria-label="Kernel inspection" aria-live="polite">
      {body}
      {view.kind === 'answer' && view.result.status === 'ok' && view.result.found && view.detailLevel === 0 && (
        <p className="nb-inspect-hint">Shift+Tab again for more</p>
      )}
    </div>
  );
}
